import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { type Config, toEnv } from '../config';
import { openDatabase } from '../db/data-source';
import {
  checkEmbeddedPostgresReachable,
  ensureDatabase,
  ensureDatabaseOf,
  RunningPostgres,
  startEmbeddedPostgres,
} from '../db/provision';
import { restartDelayMs, type RunningTemporal, spawnEntry, stopProcess, waitFor } from './processes';
import { EMBEDDED_DATABASE, exitOnError, loadRuntime } from '../runtime';

/** A Temporal a stack started, and what to print about it. */
export interface StartedTemporal extends RunningTemporal {
  summary: string[];
}

export interface StackOptions {
  /** Prefix of the stack's own messages (`[start]`). */
  name: string;
  /** Starts Temporal once PostgreSQL is up (`databaseUrl`: the app's database, on the server Temporal may share). */
  startTemporal: (config: Config, databaseUrl: string) => Promise<StartedTemporal>;
  /** How many API processes (on PORT, PORT+1, ...) and how many worker processes. */
  replicas: number;
}

/**
 * Runs Temporal (unless TEMPORAL_ADDRESS names one), PostgreSQL (DATABASE_URL's, else the embedded one), migrations,
 * then API and worker processes, all on loopback, until Ctrl-C. Shared by `npm start` and `npm run cluster`.
 */
export function runStack(opts: StackOptions): void {
  const children: { name: string; proc: ChildProcess }[] = [];
  let postgres: RunningPostgres | undefined;
  let stopping = false;

  /** Temporal is the one child everything depends on: if it dies, everything stops. */
  const supervise = (name: string, proc: ChildProcess) => {
    children.push({ name, proc });
    proc.on('exit', (code, signal) => {
      if (!stopping) {
        console.error(`[${opts.name}] ${name} exited (${signal ?? code}); stopping everything`);
        void shutdown(1);
      }
    });
  };

  /** Workers and APIs are stateless: a crashed one is started again (with backoff), the rest keeps running. */
  const keepRunning = (name: string, start: () => ChildProcess) => {
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
          `[${opts.name}] ${name} exited (${signal ?? code}); restarting in ${delay / 1000}s (crash ${crashes} in a row)`,
        );
        setTimeout(() => !stopping && run(), delay);
      });
    };
    run();
  };

  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const { proc } of children.slice().reverse()) await stopProcess(proc);
    await postgres?.stop();
    process.exit(code);
  };

  const main = async () => {
    const rt = loadRuntime(); // a configuration error stops the start before anything runs
    const config = rt.config;
    // `on`, not `once`: tsx exits the process itself when a signal finds no listener left.
    process.on('SIGINT', () => void shutdown(0));
    process.on('SIGTERM', () => void shutdown(0));

    const embeddedPgDir = path.join(config.dataDir, 'postgres');
    if (!config.databaseUrl) {
      // Before anything starts: a PostgreSQL that cannot start is a one-line fix, not a half-started stack.
      checkEmbeddedPostgresReachable(embeddedPgDir);
      postgres = await startEmbeddedPostgres(embeddedPgDir, config.embeddedPgPort, (l) =>
        console.error(`[postgres] ${l}`),
      );
      await ensureDatabase(postgres.url, EMBEDDED_DATABASE);
    } else await ensureDatabaseOf(config.databaseUrl);

    let temporalAddress = config.temporalAddress;
    let temporalSummary = [`  Temporal            ${temporalAddress} (external)`];
    if (!temporalAddress) {
      const temporal = await opts.startTemporal(config, rt.databaseUrl);
      supervise('temporal', temporal.process);
      temporalAddress = temporal.address;
      temporalSummary = temporal.summary;
    }

    for (const name of rt.generatedSecrets)
      console.log(`[${opts.name}] generated ${name} (kept in ${path.join(config.dataDir, 'secrets.json')})`);
    await (await openDatabase(rt.databaseUrl, 1)).destroy(); // migrations run once here, before the processes start

    const env = toEnv({ ...rt.config, temporalAddress, databaseUrl: rt.databaseUrl }, rt.secrets);
    const replicas = Array.from({ length: opts.replicas }, (_, i) => ({
      suffix: opts.replicas > 1 ? ` ${i + 1}` : '',
      api: `http://127.0.0.1:${config.port + i}`,
      port: config.port + i,
    }));
    for (const { suffix } of replicas) keepRunning(`worker${suffix}`, () => spawnEntry('worker', env));
    for (const { suffix, port } of replicas)
      keepRunning(`api${suffix}`, () => spawnEntry('api', { ...env, PORT: String(port) }));
    for (const { suffix, api } of replicas)
      await waitFor(`API${suffix}`, async () => (await fetch(`${api}/ready`)).ok, 60_000);

    const workers = opts.replicas > 1 ? `Workers (${opts.replicas})` : 'Worker';
    console.log(
      [
        '',
        'Everything is up (Ctrl-C stops it all):',
        ...replicas.map(({ suffix, api }) => `  ${`API${suffix}`.padEnd(20)}${api}   (OpenAPI: ${api}/openapi.json)`),
        ...temporalSummary,
        `  ${workers.padEnd(20)}task queue "${rt.config.taskQueue}"`,
        `  PostgreSQL          ${rt.databaseUrl.replace(/\/\/[^@]*@/, '//')}${config.databaseUrl ? '' : ' (embedded)'}`,
        `  Indexer key         ${rt.secrets.indexerApiKey}   (header x-indexer-key)`,
        `  Allocator address   ${rt.allocatorAddress}`,
        `  Orchestrator signer ${rt.orchestratorAddress}`,
        `  Create an API key:  npm run cli -- projects create my-app`,
        '',
      ].join('\n'),
    );
  };

  main().catch(async (err) => {
    if (children.length || postgres) {
      console.error(err);
      await shutdown(1);
    }
    exitOnError(err);
  });
}
