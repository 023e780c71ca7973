import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/data-source';
import { dropDatabase, ensureDatabase, withDatabase } from '../../src/db/provision';
import type { Devnet } from '../../src/dev/devnet-tools';
import { projectRoot, waitFor } from '../../src/dev/processes';
import { createTemporalClient } from '../../src/temporal-sdk/client';
import { readTestEnv } from './env';
import { endChainFollowers, offsetSequences } from './harness';
import { freePort } from './global-setup';

const WAIT_MS = 90_000;

/** n, n + 1 and n + 2 free on loopback (anvil, anvil, the webhook receiver). */
async function freePortBase(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const srv = net.createServer().once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
  for (;;) {
    const base = await freePort();
    if (base < 65_000 && (await free(base + 1)) && (await free(base + 2))) return base;
  }
}

/** A process started as in a terminal of its own (its own process group), its output collected. */
export interface Terminal {
  proc: ChildProcess;
  output(): string;
}

/** Stops a terminal's process group as Ctrl-C does, and kills what is left of it after 30 s. */
export async function interrupt(terminal: Terminal): Promise<void> {
  const { proc } = terminal;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  let closed = false;
  const close = new Promise((resolve) => proc.once('close', resolve)).then(() => (closed = true));
  process.kill(-proc.pid!, 'SIGINT');
  await Promise.race([close, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
  if (!closed) process.kill(-proc.pid!, 'SIGKILL');
}

/**
 * `npm run devnet` for a suite: a database of its own (migrated here, so that its ids start apart from the shared
 * database's), a data folder, a task queue of its own on the run's Temporal dev server, and free ports.
 */
export class DevnetRun {
  env: Record<string, string> = {};
  apiPort = 0;
  portBase = 0;
  dataDir = '';
  devnet?: Terminal;
  private adminUrl = '';
  private database = '';

  async prepare(settings: Record<string, string> = {}): Promise<void> {
    const test = readTestEnv();
    this.adminUrl = test.adminUrl;
    this.database = `orchestrator_devnet_${randomBytes(4).toString('hex')}`;
    await ensureDatabase(this.adminUrl, this.database);
    const db = await openDatabase(withDatabase(this.adminUrl, this.database), 1);
    await offsetSequences(db);
    await db.destroy();
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-devnet-'));
    this.env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !/^(DATABASE_URL|TEMPORAL_|NODE_ENV|ORCHESTRATOR_|ALLOCATOR_|INDEXER_|RPC_URL_|RELAYER_)/.test(k),
      ),
    ) as Record<string, string>;
    Object.assign(this.env, {
      DATA_DIR: this.dataDir,
      DATABASE_URL: withDatabase(this.adminUrl, this.database),
      TEMPORAL_ADDRESS: test.temporalAddress,
      TEMPORAL_NAMESPACE: test.namespace,
      TEMPORAL_TASK_QUEUE: `devnet-${randomBytes(4).toString('hex')}`,
      INDEXER_POLL_MS: '200',
      LOG_LEVEL: 'warn',
      // The relayer's metrics port is left unserved: other suites may run relayers beside this one.
      RELAYER_METRICS_PORT: '0',
      ...settings,
    });
  }

  /** Starts `command` (a shell line) in a terminal of its own, with the suite's environment and `extra`. */
  terminal(command: string, extra: Record<string, string> = {}): Terminal {
    let output = '';
    const proc = spawn('bash', ['-c', command], {
      cwd: projectRoot,
      env: { ...this.env, ...extra },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    return { proc, output: () => output };
  }

  /**
   * `command` (`npm run devnet`) on ports found free, with a block a second; started again on fresh ones when it
   * exits before it is up (another process may bind a port between our check and the devnet's bind).
   */
  async start(command: string): Promise<Terminal> {
    for (let attempt = 1; ; attempt++) {
      [this.apiPort, this.portBase] = [await freePort(), await freePortBase()];
      this.env.PORT = String(this.apiPort);
      const devnet = this.terminal(`${command} -- --port-base ${this.portBase} --block-time 1`);
      let exited = false;
      devnet.proc.once('exit', () => (exited = true));
      await waitFor('the devnet', async () => exited || devnet.output().includes('Everything is up'), WAIT_MS);
      if (!exited) return (this.devnet = devnet);
      if (attempt === 3) throw new Error(`npm run devnet exited:\n${devnet.output()}`);
      try {
        process.kill(-devnet.proc.pid!, 'SIGKILL'); // whatever of its group outlived it
      } catch {
        // none did
      }
    }
  }

  /**
   * Ends the devnet's chain-indexer workflows: their ids name the chain alone, so the next devnet of this lane's
   * namespace (the same chain ids) would otherwise find them running on a queue nobody polls, and read nothing.
   */
  private async stopFollowing(): Promise<void> {
    const test = readTestEnv();
    const temporal = createTemporalClient(test.temporalAddress, test.namespace);
    try {
      await endChainFollowers(
        temporal,
        this.described().chains.map(({ chainId }) => chainId),
        'the devnet stopped',
      );
    } finally {
      await temporal.connection.close();
    }
  }

  /** What the devnet wrote to <DATA_DIR>/devnet.json. */
  described(): Devnet {
    return JSON.parse(fs.readFileSync(path.join(this.dataDir, 'devnet.json'), 'utf8')) as Devnet;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async get(route: string, key: string): Promise<any> {
    const res = await fetch(`http://127.0.0.1:${this.apiPort}${route}`, { headers: { 'x-api-key': key } });
    return res.json();
  }

  async stop(): Promise<void> {
    if (this.devnet) await interrupt(this.devnet);
    if (this.devnet) await this.stopFollowing();
    if (this.database) await dropDatabase(this.adminUrl, this.database).catch(() => undefined);
    if (this.dataDir) fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The relayer's outcome line for an intent in its output (it prints one per intent it is done with). */
export const relayedLine = (output: string, intentId: string) =>
  output
    .split('\n')
    .find((l) => l.startsWith(`{"intentId":"${intentId}",`))
    ?.trim();
