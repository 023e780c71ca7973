import { ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot, stopProcess, waitFor } from '../../src/dev/processes';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { dropDatabase, ensureDatabaseOf, withDatabase } from '../../src/db/provision';
import { freePort } from '../support/global-setup';
import { readTestEnv } from '../support/env';

/**
 * `npm start` as a newcomer runs it (embedded PostgreSQL, Temporal dev server with its Web UI, worker, API), on
 * free ports and a scratch data folder; then Ctrl-C and a second start that must find the same data.
 */
const run = promisify(execFile);
let dataDir: string;
let env: Record<string, string>;
let ports: { api: number; temporal: number; ui: number; pg: number };

/** Ports found free are bound later by `npm start`: when one was taken meanwhile (busy machine), fresh ports and again. */
async function start(attempts = 3): Promise<{ proc: ChildProcess; output: () => string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce();
    } catch (err) {
      if (attempt === attempts || !/EADDRINUSE|address already in use/i.test(String(err))) throw err;
      await pickPorts();
    }
  }
}

async function pickPorts(): Promise<void> {
  ports = { api: await freePort(), temporal: await freePort(), ui: await freePort(), pg: await freePort() };
  Object.assign(env, {
    PORT: String(ports.api),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    EMBEDDED_PG_PORT: String(ports.pg),
  });
}

function startOnce(): Promise<{ proc: ChildProcess; output: () => string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main/dev.ts'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('Everything is up')) {
        clearInterval(timer);
        resolve({ proc, output: () => out });
      } else if (proc.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`npm start exited early:\n${out}`));
      }
    }, 100);
  });
}

const api = (p: string, init?: RequestInit) => fetch(`http://127.0.0.1:${ports.api}${p}`, init);

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-start-'));
  fs.chmodSync(dataDir, 0o755); // the embedded PostgreSQL runs as the `postgres` user when we are root
  env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        ![
          'DATABASE_URL',
          'TEMPORAL_ADDRESS',
          'ORCHESTRATOR_PRIVATE_KEY',
          'ALLOCATOR_PRIVATE_KEY',
          'INDEXER_API_KEY',
          'NODE_ENV',
        ].includes(k),
    ),
  ) as Record<string, string>;
  Object.assign(env, { DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  await pickPorts();
}, 10_000);

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test('npm start serves a portfolio fed through the indexer route, and keeps it across a restart', async () => {
  const first = await start();
  try {
    expect(first.output()).toContain(`Temporal Web UI     http://127.0.0.1:${ports.ui}`);
    expect((await api('/ready')).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.ui}/`)).status).toBe(200);

    const cli = await run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'projects', 'create', 'newcomer'], {
      cwd: projectRoot,
      env,
    });
    const { apiKey, projectId } = JSON.parse(cli.stdout.trim().split('\n').pop()!);
    expect(projectId).toMatch(/^[0-9a-f-]{36}$/);
    const indexerKey = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')).indexerApiKey;
    const ingest = await api('/indexer/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-indexer-key': indexerKey },
      body: JSON.stringify({
        events: [
          {
            id: 'restart-1',
            type: 'balance',
            chainId: 8453,
            account: '0x3333333333333333333333333333333333333333',
            token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
            unlocked: '42',
            locked: '8',
            blockNumber: '1',
          },
        ],
      }),
    });
    expect(ingest.status).toBe(200);
    const res = await api('/accounts/0x3333333333333333333333333333333333333333/portfolio', {
      headers: { 'x-api-key': apiKey },
    });
    expect(((await res.json()) as { portfolio: { balance: unknown }[] }).portfolio[0].balance).toEqual({
      locked: '8',
      unlocked: '42',
    });

    // The operator lets the project withdraw for an account.
    const added = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/main/cli.ts',
        'accounts',
        'add',
        projectId,
        '0x3333333333333333333333333333333333333333',
      ],
      { cwd: projectRoot, env },
    );
    expect(JSON.parse(added.stdout.trim().split('\n').pop()!)).toEqual({
      projectId,
      account: '0x3333333333333333333333333333333333333333',
    });
    const withdrawal = await api('/withdrawals', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({
        account: '0x3333333333333333333333333333333333333333',
        chainId: 8453,
        tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        amount: '3',
        recipient: '0x3333333333333333333333333333333333333333',
      }),
    });
    expect(withdrawal.status).toBe(200);

    // A crashed API is restarted; the rest keeps running.
    const { stdout: pids } = await run('pgrep', ['-P', String(first.proc.pid), '-f', 'src/main/api.ts']);
    process.kill(Number(pids.trim().split('\n')[0]), 'SIGKILL');
    await waitFor(
      'restarted API',
      async () => first.output().includes('[start] api exited (SIGKILL); restarting') && (await api('/ready')).ok,
      30_000,
    );
  } finally {
    await stopProcess(first.proc, 'SIGINT');
  }
  expect(first.proc.exitCode).toBe(0);

  const second = await start();
  try {
    const keys = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
    expect(second.output()).not.toContain('generated');
    expect(second.output()).toContain(keys.indexerApiKey);
    const cli = await run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'projects', 'create', 'second'], {
      cwd: projectRoot,
      env,
    });
    const { apiKey } = JSON.parse(cli.stdout.trim().split('\n').pop()!);
    const res = await api('/accounts/0x3333333333333333333333333333333333333333/portfolio', {
      headers: { 'x-api-key': apiKey },
    });
    const body = (await res.json()) as { portfolio: { balance: unknown }[] };
    expect(body.portfolio[0].balance).toEqual({ locked: '8', unlocked: '42' });
  } finally {
    await stopProcess(second.proc, 'SIGINT');
  }
}, 300_000);

test('the CLI rejects bad usage with exit code 2', async () => {
  await expect(
    run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', 'projects', 'delete'], { cwd: projectRoot, env }),
  ).rejects.toMatchObject({ code: 2 });
});

(process.getuid?.() === 0 ? test : test.skip)(
  '22.11 as root, a data folder the postgres user cannot reach stops npm start with one line naming the fix',
  async () => {
    const privateHome = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-home-')); // mode 700, as a home directory
    try {
      const failed = await run(process.execPath, ['--import', 'tsx', 'src/main/dev.ts'], {
        cwd: projectRoot,
        env: { ...env, DATA_DIR: path.join(privateHome, 'data') },
      }).then(
        () => ({ code: 0, stdout: '', stderr: '' }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^configuration error: .*"postgres" user.*${privateHome} is not searchable.*DATABASE_URL.*DATA_DIR`,
          ),
        ),
      ]);
      expect(failed.stdout + failed.stderr).not.toMatch(/EACCES/);
    } finally {
      fs.rmSync(privateHome, { recursive: true, force: true });
    }
  },
  120_000,
);

test('npm start creates the database DATABASE_URL names when its server has none, and says why it cannot', async () => {
  const { adminUrl } = readTestEnv();
  const database = `orchestrator_fresh_${randomBytes(4).toString('hex')}`;
  const exists = async () => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 1;
    } finally {
      await client.end();
    }
  };
  try {
    await ensureDatabaseOf(withDatabase(adminUrl, database));
    expect(await exists()).toBe(true);
    await ensureDatabaseOf(withDatabase(adminUrl, database)); // there already: nothing to do
    expect(await exists()).toBe(true);
  } finally {
    await dropDatabase(adminUrl, database);
  }
  const stranger = new URL(withDatabase(adminUrl, database));
  stranger.username = 'no_such_role';
  await expect(ensureDatabaseOf(stranger.toString())).rejects.toThrow(
    /^DATABASE_URL: cannot connect \(.*no_such_role.*\)$/,
  );
});
