import { ChildProcess, spawn, spawnSync, StdioOptions } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Connection } from '@temporalio/client';

/** Shared by `npm start` and the test harness, so tests provision Temporal and processes exactly as a user does. */
export const projectRoot = path.resolve(__dirname, '../..');

export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not come up within ${timeoutMs / 1000}s`);
}

export function stopProcess(proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill(signal);
  });
}

/** Backoff between restarts of a crashed app process: 1 s doubling to 30 s (a process up for a minute starts over). */
export const restartDelayMs = (crashesInARow: number) => Math.min(1000 * 2 ** Math.max(crashesInARow - 1, 0), 30_000);

/** Runs one of our entry points (`src/main/*.ts`) as its own process. */
export function spawnEntry(
  entry: 'api' | 'worker',
  env: Record<string, string>,
  stdio: StdioOptions = ['ignore', 'inherit', 'inherit'],
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', `src/main/${entry}.ts`], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio,
  });
}

/** A Temporal the dev tooling started: the frontend's address and the process that stops it all. */
export interface RunningTemporal {
  address: string;
  process: ChildProcess;
}

/** Runs one of temporal/'s find-or-build scripts and returns what it prints (a path). */
function ensureBuilt(script: string, what: string): string {
  // Build (once) before starting, so a first-time build is not cut short by a start-up timeout.
  const built = spawnSync(path.join(projectRoot, 'temporal', script), { stdio: ['ignore', 'pipe', 'inherit'] });
  if (built.status !== 0) throw new Error(`no ${what} available (see the message above)`);
  return built.stdout.toString().trim();
}

/**
 * Waits for `ready`; a process that exits (its port taken, say) fails the start at once rather than after the
 * timeout, and one still starting when the timeout comes is stopped, so a retry does not find it in the way.
 */
async function awaitStart(what: string, proc: ChildProcess, ready: () => Promise<boolean>, timeoutMs: number) {
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code, signal) => reject(new Error(`${what} exited (${signal ?? code}) while starting`))),
  );
  exited.catch(() => undefined); // an exit after the start is the caller's to watch, not an unhandled rejection
  try {
    await Promise.race([waitFor(what, ready, timeoutMs), exited]);
  } catch (err) {
    await stopProcess(proc);
    throw err;
  }
}

/** What temporal/start-dev.sh and temporal/start-cluster.sh both read from their environment. */
function startScriptEnv(
  cli: string,
  opts: { port: number; namespace: string; logLevel?: string; dynamicConfig?: string[] },
): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_CLI: cli,
    TEMPORAL_PORT: String(opts.port),
    TEMPORAL_NAMESPACE: opts.namespace,
    TEMPORAL_LOG_LEVEL: opts.logLevel ?? 'warn',
    TEMPORAL_DYNAMIC_CONFIG: (opts.dynamicConfig ?? []).join(' '),
  };
}

/**
 * Finds or builds the pinned CLI (temporal/ensure-cli.sh), then starts it through temporal/start-dev.sh.
 * `dynamicConfig`: extra server settings (`key=value`), e.g. the tests' low continue-as-new suggestion.
 */
export async function startTemporalDevServer(opts: {
  port: number;
  uiPort?: number;
  dbFile?: string;
  namespace: string;
  /** more namespaces created at the start, each with our search attributes */
  extraNamespaces?: string[];
  logLevel?: string;
  dynamicConfig?: string[];
}): Promise<RunningTemporal> {
  const cli = ensureBuilt('ensure-cli.sh', 'Temporal CLI');
  const proc = spawn(path.join(projectRoot, 'temporal/start-dev.sh'), [], {
    cwd: projectRoot,
    env: {
      ...startScriptEnv(cli, opts),
      TEMPORAL_HEADLESS: opts.uiPort ? '0' : '1',
      ...(opts.uiPort ? { TEMPORAL_UI_PORT: String(opts.uiPort) } : {}),
      TEMPORAL_DB_FILE: opts.dbFile ?? '',
      TEMPORAL_EXTRA_NAMESPACES: (opts.extraNamespaces ?? []).join(' '),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const address = `127.0.0.1:${opts.port}`;
  await awaitStart(
    `Temporal dev server on port ${opts.port}`,
    proc,
    async () => {
      const c = await Connection.connect({ address, connectTimeout: 1000 });
      await c.close();
      return true;
    },
    60_000,
  );
  return { address, process: proc };
}

/** The line temporal/start-cluster.sh prints once the namespace and the search attributes are registered. */
const CLUSTER_READY = 'Temporal cluster ready';

/**
 * Builds (once) temporal-server and the CLI, then runs temporal/start-cluster.sh: a cluster whose services are
 * separate processes, its frontend on `port`, its config and logs in `dir`, its databases on `databaseUrl`'s server
 * (`databaseName` and `<databaseName>_visibility`, default `temporal`).
 */
export async function startTemporalCluster(opts: {
  port: number;
  namespace: string;
  dir: string;
  databaseUrl?: string;
  databaseName?: string;
  logLevel?: string;
  dynamicConfig?: string[];
}): Promise<RunningTemporal> {
  ensureBuilt('ensure-server.sh', 'temporal-server');
  const cli = ensureBuilt('ensure-cli.sh', 'Temporal CLI');
  const proc = spawn(path.join(projectRoot, 'temporal/start-cluster.sh'), [], {
    cwd: projectRoot,
    env: {
      ...startScriptEnv(cli, opts),
      TEMPORAL_CLUSTER_DIR: opts.dir,
      ...(opts.databaseUrl ? { TEMPORAL_DB_URL: opts.databaseUrl } : {}),
      ...(opts.databaseName ? { TEMPORAL_DB_NAME: opts.databaseName } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let ready = false;
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    console.log(line);
    if (line.startsWith(CLUSTER_READY)) ready = true;
  });
  // The first start creates both schemas, and five servers join their ring on a machine that may be busy.
  await awaitStart(`Temporal cluster on port ${opts.port}`, proc, async () => ready, 180_000);
  return { address: `127.0.0.1:${opts.port}`, process: proc };
}

/**
 * A free port below 32768 for the frontend: Temporal's PostgreSQL schema keeps membership ports in a smallint, and the
 * cluster's ports run to the frontend's + 24. The OS hands out ephemeral ports above that range, so pick one here.
 */
export function clusterBasePort(): Promise<number> {
  const port = 20_000 + Math.floor(Math.random() * 12_000);
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(clusterBasePort()));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(port)));
  });
}
