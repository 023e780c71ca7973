import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The cluster scripts' checks that need no Temporal server: how a database URL is read, which ports are refused, which
 * services kill and restart take.
 */
const temporal = path.resolve(__dirname, '../../temporal');

function dbUrl(env: Record<string, string>) {
  const run = spawnSync(
    'bash',
    [
      '-c',
      `source "${temporal}/db-url.sh" && echo "$DB_HOST|$DB_PORT|$DB_USER|$DB_PASSWORD|$DB_NAME|$DB_VISIBILITY_NAME"`,
    ],
    { env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8' },
  );
  return { status: run.status, out: run.stdout.trim(), err: run.stderr.trim() };
}

test("db-url.sh splits the app's URL (password, database and query ignored) and names Temporal's two databases", () => {
  expect(
    dbUrl({ TEMPORAL_DB_URL: 'postgres://postgres:s3cret@127.0.0.1:5488/orchestrator?sslmode=disable' }),
  ).toMatchObject({
    status: 0,
    out: '127.0.0.1|5488|postgres|s3cret|temporal|temporal_visibility',
  });
  expect(dbUrl({ TEMPORAL_DB_URL: 'postgresql://app@db.internal', TEMPORAL_DB_NAME: 'temporal_test_1' }).out).toBe(
    'db.internal|5432|app||temporal_test_1|temporal_test_1_visibility',
  );
  expect(dbUrl({}).out).toBe('127.0.0.1|5432|postgres||temporal|temporal_visibility');
});

test('db-url.sh refuses a URL that is not postgres://user@host', () => {
  for (const url of ['mysql://root@127.0.0.1:3306', 'postgres://127.0.0.1:5432/db', 'postgres://u@h:port']) {
    const run = dbUrl({ TEMPORAL_DB_URL: url });
    expect(run.status).toBe(1);
    expect(run.err).toContain(`TEMPORAL_DB_URL=${url} is not postgres://`);
  }
});

test("start-cluster.sh refuses ports that Temporal's membership table (smallint) cannot store, before building anything", () => {
  const run = spawnSync(path.join(temporal, 'start-cluster.sh'), [], {
    env: { PATH: process.env.PATH!, TEMPORAL_PORT: '32744' },
    encoding: 'utf8',
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('TEMPORAL_PORT=32744: the cluster uses ports up to TEMPORAL_PORT + 24');
});

test('start-cluster.sh kill and restart name one of the five services, and kill one that is running', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cluster-scripts-'));
  const run = (...args: string[]) =>
    spawnSync(path.join(temporal, 'start-cluster.sh'), args, {
      env: { PATH: process.env.PATH!, TEMPORAL_CLUSTER_DIR: dir },
      encoding: 'utf8',
    });
  try {
    for (const args of [['kill'], ['kill', 'history3'], ['restart', 'web']]) {
      expect(run(...args)).toMatchObject({ status: 1 });
      expect(run(...args).stderr).toContain('kill|restart frontend|history|history2|matching|worker');
    }
    expect(run('kill', 'matching')).toMatchObject({ status: 1, stderr: 'matching is not running\n' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
