import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { loadConfig, toEnv } from '../config';
import { openDatabase } from '../db/data-source';
import {
  checkEmbeddedPostgresReachable,
  ensureDatabase,
  RunningPostgres,
  startEmbeddedPostgres,
} from '../db/provision';
import { restartDelayMs, spawnEntry, startTemporalDevServer, stopProcess, waitFor } from '../dev/processes';
import { EMBEDDED_DATABASE, exitOnError, loadRuntime } from '../runtime';

const children: { name: string; proc: ChildProcess }[] = [];
let postgres: RunningPostgres | undefined;
let stopping = false;

/** Temporal's dev server is the one child everything depends on: if it dies, everything stops. */
function supervise(name: string, proc: ChildProcess): void {
  children.push({ name, proc });
  proc.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`[start] ${name} exited (${signal ?? code}); stopping everything`);
      void shutdown(1);
    }
  });
}

/** The worker and the API are stateless: a crashed one is started again (with backoff), the rest keeps running. */
function keepRunning(name: 'worker' | 'api', start: () => ChildProcess): void {
  let crashes = 0;
  const run = () => {
    const proc = start();
    const entry = { name, proc };
    children.push(entry);
    const startedAt = Date.now();
    proc.on('exit', (code, signal) => {
      children.splice(children.indexOf(entry), 1);
      if (stopping) return;
      crashes = Date.now() - startedAt > 60_000 ? 1 : crashes + 1;
      const delay = restartDelayMs(crashes);
      console.error(
        `[start] ${name} exited (${signal ?? code}); restarting in ${delay / 1000}s (crash ${crashes} in a row)`,
      );
      setTimeout(() => !stopping && run(), delay);
    });
  };
  run();
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const { proc } of children.slice().reverse()) await stopProcess(proc);
  await postgres?.stop();
  process.exit(code);
}

/** `npm start`: Temporal dev server (+ Web UI), PostgreSQL, migrations, one worker and one API, all on loopback. */
async function main() {
  const config = loadConfig();
  // `on`, not `once`: tsx exits the process itself when a signal finds no listener left.
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  const embeddedPgDir = path.join(config.dataDir, 'postgres');
  // Before anything starts: a PostgreSQL that cannot start is a one-line fix, not a half-started stack.
  if (!config.databaseUrl) checkEmbeddedPostgresReachable(embeddedPgDir);

  let temporalAddress = config.temporalAddress;
  if (!temporalAddress) {
    const server = await startTemporalDevServer({
      port: config.temporalPort,
      uiPort: config.temporalUiPort,
      dbFile: path.join(config.dataDir, 'temporal', 'dev.sqlite'),
      namespace: config.temporalNamespace,
    });
    supervise('temporal', server.process);
    temporalAddress = server.address;
  }

  if (!config.databaseUrl) {
    postgres = await startEmbeddedPostgres(embeddedPgDir, config.embeddedPgPort, (l) =>
      console.error(`[postgres] ${l}`),
    );
    await ensureDatabase(postgres.url, EMBEDDED_DATABASE);
  }
  const rt = loadRuntime({ ...process.env, TEMPORAL_ADDRESS: temporalAddress });
  for (const name of rt.generatedSecrets)
    console.log(`[start] generated ${name} (kept in ${path.join(config.dataDir, 'secrets.json')})`);
  await (await openDatabase(rt.databaseUrl, 1)).destroy(); // migrations run once here, before the processes start

  const env = {
    ...toEnv({ ...rt.config, temporalAddress, databaseUrl: rt.databaseUrl }, rt.secrets),
    PORT: String(config.port),
  };
  keepRunning('worker', () => spawnEntry('worker', env));
  keepRunning('api', () => spawnEntry('api', env));
  const api = `http://127.0.0.1:${config.port}`;
  await waitFor('API', async () => (await fetch(`${api}/ready`)).ok, 60_000);

  console.log(
    [
      '',
      'Everything is up (Ctrl-C stops it all):',
      `  API                 ${api}   (OpenAPI: ${api}/openapi.json)`,
      `  Temporal            ${temporalAddress}${config.temporalAddress ? ' (external)' : ''}`,
      ...(config.temporalAddress ? [] : [`  Temporal Web UI     http://127.0.0.1:${config.temporalUiPort}`]),
      `  Worker              task queue "${rt.config.taskQueue}"`,
      `  PostgreSQL          ${rt.databaseUrl.replace(/\/\/[^@]*@/, '//')}${config.databaseUrl ? '' : ' (embedded)'}`,
      `  Indexer key         ${rt.secrets.indexerApiKey}   (header x-indexer-key)`,
      `  Allocator address   ${rt.allocatorAddress}`,
      `  Orchestrator signer ${rt.orchestratorAddress}`,
      `  Create an API key:  npm run cli -- projects create my-app`,
      '',
    ].join('\n'),
  );
}

main().catch(async (err) => {
  if (children.length || postgres) {
    console.error(err);
    await shutdown(1);
  }
  exitOnError(err);
});
