import { ChildProcess, spawn, spawnSync, StdioOptions } from 'node:child_process';
import path from 'node:path';
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

export interface TemporalDevServer {
  address: string;
  process: ChildProcess;
}

/** Finds or builds the pinned CLI (temporal/ensure-cli.sh), then starts it through temporal/start-dev.sh. */
/** `dynamicConfig`: extra server settings (`key=value`), e.g. the tests' low continue-as-new suggestion. */
export async function startTemporalDevServer(opts: {
  port: number;
  uiPort?: number;
  dbFile?: string;
  namespace: string;
  logLevel?: string;
  dynamicConfig?: string[];
}): Promise<TemporalDevServer> {
  // Build (once) before starting, so a first-time build is not cut short by the start-up timeout below.
  const built = spawnSync(path.join(projectRoot, 'temporal/ensure-cli.sh'), { stdio: ['ignore', 'pipe', 'inherit'] });
  if (built.status !== 0) throw new Error('no Temporal CLI available (see the message above)');
  const proc = spawn(path.join(projectRoot, 'temporal/start-dev.sh'), [], {
    cwd: projectRoot,
    env: {
      ...process.env,
      TEMPORAL_CLI: built.stdout.toString().trim(),
      TEMPORAL_PORT: String(opts.port),
      TEMPORAL_NAMESPACE: opts.namespace,
      TEMPORAL_HEADLESS: opts.uiPort ? '0' : '1',
      ...(opts.uiPort ? { TEMPORAL_UI_PORT: String(opts.uiPort) } : {}),
      TEMPORAL_DB_FILE: opts.dbFile ?? '',
      TEMPORAL_LOG_LEVEL: opts.logLevel ?? 'warn',
      TEMPORAL_DYNAMIC_CONFIG: (opts.dynamicConfig ?? []).join(' '),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const address = `127.0.0.1:${opts.port}`;
  // A server that exits (its port taken, say) fails the start at once rather than after the whole timeout.
  const exited = new Promise<never>((_, reject) =>
    proc.once('exit', (code, signal) =>
      reject(new Error(`Temporal dev server exited (${signal ?? code}) while starting on port ${opts.port}`)),
    ),
  );
  exited.catch(() => undefined); // an exit after the start is the caller's to watch, not an unhandled rejection
  await Promise.race([
    waitFor(
      'Temporal dev server',
      async () => {
        const c = await Connection.connect({ address, connectTimeout: 1000 });
        await c.close();
        return true;
      },
      60_000,
    ),
    exited,
  ]);
  return { address, process: proc };
}
