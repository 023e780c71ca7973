import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPublicClient, erc20Abi, getAddress, http, type Hex } from 'viem';
import { openDatabase } from '../../src/db/data-source';
import { dropDatabase, ensureDatabase, withDatabase } from '../../src/db/provision';
import type { Devnet } from '../../src/dev/devnet-tools';
import { projectRoot, waitFor } from '../../src/dev/processes';
import { readTestEnv } from '../support/env';
import { offsetSequences } from '../support/harness';
import { freePort } from '../support/global-setup';

/**
 * The devnet walk-through of docs/chain-indexer.md, run as written: its command blocks, in their order, in a shell
 * that keeps their variables from one block to the next, against `npm run devnet` (on free ports, with a database
 * and a task queue of its own on the run's Temporal dev server), each step's outcome checked through the API.
 * The only changes to the blocks are the ports (`localhost:3000`, the receiver's 8547) and the devnet's
 * `--port-base` and `--block-time 1`.
 */
jest.setTimeout(300_000);

const run = promisify(execFile);
const USER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const RELAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const WAIT_MS = 90_000;

/** The ```sh blocks of the Walk-through section, unindented. */
function walkthroughBlocks(): string[] {
  const doc = fs.readFileSync(path.join(projectRoot, 'docs/chain-indexer.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Walk-through'), doc.indexOf('\n## ', doc.indexOf('### Walk-through')));
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^ *```$/gm)].map(([, indent, body]) =>
    body
      .split('\n')
      .map((line) => line.slice(indent.length))
      .join('\n')
      .trim(),
  );
}

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

let devnet: ChildProcess;
let output = '';
let env: Record<string, string>;
let apiPort: number;
let portBase: number;
let adminUrl: string;
let database: string;
let dataDir: string;
let stateFile: string;
let blocks: string[];

/**
 * Block 1 as a terminal runs it, on ports found free; started again on fresh ones when it exits before it is up
 * (another process may bind a port between our check and the devnet's bind).
 */
async function startDevnet(block: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    [apiPort, portBase] = [await freePort(), await freePortBase()];
    env.PORT = String(apiPort);
    output = '';
    devnet = spawn('bash', ['-c', `${block} -- --port-base ${portBase} --block-time 1`], {
      cwd: projectRoot,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    devnet.stdout!.on('data', (d) => (output += d));
    devnet.stderr!.on('data', (d) => (output += d));
    let exited = false;
    devnet.once('exit', () => (exited = true));
    await waitFor('the devnet', async () => exited || output.includes('Everything is up'), WAIT_MS);
    if (!exited) return;
    if (attempt === 3) throw new Error(`npm run devnet exited:\n${output}`);
    try {
      process.kill(-devnet.pid!, 'SIGKILL'); // whatever of its group outlived it
    } catch {
      // none did
    }
  }
}

const localize = (block: string) =>
  block.replaceAll('localhost:3000', `127.0.0.1:${apiPort}`).replaceAll('127.0.0.1:8547', `127.0.0.1:${portBase + 2}`);

/** Runs a block in bash (stops at the first failing command) with the variables earlier blocks set. */
async function step(block: string): Promise<string> {
  const script = `set -a\n. '${stateFile}'\nset -e\n${localize(block)}\nexport -p > '${stateFile}'\n`;
  const { stdout } = await run('bash', ['-c', script], { cwd: projectRoot, env, maxBuffer: 16 << 20 });
  return stdout;
}

/** A variable the blocks have set. */
async function shellVar(name: string): Promise<string> {
  return (await run('bash', ['-c', `. '${stateFile}'; printf %s "$${name}"`], { env })).stdout;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function get(route: string, key: string): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${apiPort}${route}`, { headers: { 'x-api-key': key } });
  return res.json();
}

/** The locked USDC on `chainId` in a portfolio answer. */
function lockedIn(portfolioJson: string, chainId: number): string | undefined {
  const { portfolio } = JSON.parse(portfolioJson) as {
    portfolio: { tokenChainBalance: { chainId: number; balance: { locked: string } }[] }[];
  };
  return portfolio.flatMap((t) => t.tokenChainBalance).find((c) => c.chainId === chainId)?.balance.locked;
}

beforeAll(async () => {
  blocks = walkthroughBlocks();
  const test = readTestEnv();
  adminUrl = test.adminUrl;
  database = `orchestrator_devnet_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(adminUrl, database);
  // Migrated here, so that its ids start apart from the shared database's: the devnet uses the run's Temporal.
  const db = await openDatabase(withDatabase(adminUrl, database), 1);
  await offsetSequences(db);
  await db.destroy();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'orchestrator-devnet-'));
  stateFile = path.join(dataDir, 'walkthrough.env');
  fs.writeFileSync(stateFile, '');
  env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(DATABASE_URL|TEMPORAL_|NODE_ENV|ORCHESTRATOR_|ALLOCATOR_|INDEXER_|RPC_URL_)/.test(k),
    ),
  ) as Record<string, string>;
  Object.assign(env, {
    DATA_DIR: dataDir,
    DATABASE_URL: withDatabase(adminUrl, database),
    TEMPORAL_ADDRESS: test.temporalAddress,
    TEMPORAL_NAMESPACE: test.namespace,
    TEMPORAL_TASK_QUEUE: `devnet-${randomBytes(4).toString('hex')}`,
    INDEXER_POLL_MS: '200',
    LOG_LEVEL: 'warn',
  });
});

afterAll(async () => {
  if (devnet) {
    // Ctrl-C: the terminal signals the devnet's whole process group; done once every process of it has let go of
    // the output ('close').
    let closed = false;
    const close = new Promise((resolve) => devnet.once('close', resolve)).then(() => (closed = true));
    process.kill(-devnet.pid!, 'SIGINT');
    await Promise.race([close, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
    if (!closed) process.kill(-devnet.pid!, 'SIGKILL');
  }
  await dropDatabase(adminUrl, database).catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('the devnet walk-through: deposit, portfolio, an SDK 1.15.0 intent relayed to COMPLETED, and a deposit bridged to completion with its webhooks, all read from the chains', async () => {
  expect(blocks).toHaveLength(10);

  // 1. The devnet, in a terminal of its own.
  expect(blocks[0]).toBe('npm run devnet');
  await startDevnet(blocks[0]);
  expect(output).toContain(`Webhook receiver: http://127.0.0.1:${portBase + 2}/hooks`);

  // 2. A project.
  await step(blocks[1]);
  const key = await shellVar('KEY');
  expect(key).toMatch(/^sk_/);

  // 3, 4. A deposit into the user's lock, and the portfolio showing it once the indexer has read it.
  await step(blocks[2]);
  await waitFor(
    'the deposit in the portfolio',
    async () => lockedIn(await step(blocks[3]), 84532) === '10000000',
    WAIT_MS,
  );

  // 5. Quoted, signed and submitted with the published client.
  await step(blocks[4]);
  const intentId = await shellVar('INTENT');
  expect(intentId).toMatch(/^\d+$/);
  const submitted = await get(`/intent-operation/${intentId}?full=true`, key);
  expect(submitted).toMatchObject({ status: 'PENDING', userAddress: USER, destinationChainId: 421614 });

  // 6. Relayed: filled on the destination, claimed on the origin, COMPLETED as the indexer read both.
  expect(await step(blocks[5])).toContain(`{"intentId":"${intentId}","status":"COMPLETED"}`);

  // 7. The status and the portfolio: the lock holds what the claim left.
  expect(await step(blocks[6])).toContain('"status":"COMPLETED"');
  const completed = await get(`/intent-operation/${intentId}`, key);
  expect(completed).toMatchObject({ status: 'COMPLETED', fillTransactionHash: expect.stringMatching(/^0x/) });
  expect(completed.claims).toEqual([expect.objectContaining({ chainId: 84532, status: 'CLAIMED' })]);
  const [[, spent]] = submitted.intentOp.elements[0].idsAndAmounts;
  await waitFor(
    'the claimed lock',
    async () => lockedIn(await step(blocks[6].split('\n')[1]), 84532) === String(10_000_000n - BigInt(spent)),
    WAIT_MS,
  );
  // The claim moved the tokens: DevnetCompact holds what the lock kept and paid the relayer (account 0) the rest.
  const { chains } = JSON.parse(fs.readFileSync(path.join(dataDir, 'devnet.json'), 'utf8')) as Devnet;
  const { rpcUrl, compact, usdc: baseUsdc } = chains.find((c) => c.chainId === 84532)!;
  const usdcOf = (owner: Hex) =>
    createPublicClient({ transport: http(rpcUrl) }).readContract({
      address: baseUsdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    });
  expect(await usdcOf(compact)).toBe(10_000_000n - BigInt(spent));
  expect(await usdcOf(RELAYER)).toBe(1_000_000_000n + BigInt(spent));

  // 8. A webhook endpoint (the devnet's receiver) and a managed deposit account: a DepositAccount at one address on
  // both chains.
  const registered = await step(blocks[7]);
  expect(registered).toContain('"secret":"whsec_');
  expect(registered).toContain('"managed":true');
  const account = await shellVar('ACCOUNT');
  expect(account).toBe(getAddress(account));
  for (const port of [portBase, portBase + 1]) {
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${port}`) });
    expect(await chain.getCode({ address: account as Hex })).toMatch(/^0x[0-9a-f]{2,}$/);
  }

  // 9. A transfer into the account: its webhooks reach the receiver.
  await step(blocks[8]);
  await waitFor('deposit-received and bridge-started', async () => /\[webhook\] bridge-started /.test(output), WAIT_MS);
  const hooks = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('[webhook] '))
      .map((l) => l.split(' ')[1]);
  expect(hooks()).toEqual(['deposit-received', 'bridge-started']);
  const [deposit] = (await get(`/deposit-processor/deposits?account=${account}`, key)).deposits;
  expect(deposit).toMatchObject({ chain: 'eip155:84532', amount: '5000000', sender: USER, stage: 'bridging' });
  const delivered = async () =>
    (await get('/deposit-processor/webhooks/events', key)).events.filter(
      (e: { status: string; depositId: string }) => e.status === 'delivered' && e.depositId === deposit.id,
    );
  await waitFor('the deliveries recorded', async () => (await delivered()).length === 2, WAIT_MS);

  // 10. The bridge's intent relayed: filled on Arbitrum Sepolia, which completes the deposit (its fill paid the
  // account, read in the fill's range: the bridge's arrival, no deposit), and claimed through Permit2 from the
  // account on Base Sepolia, which completes the intent. A failed relay is reported last: the deposit's outcome does
  // not depend on the claim.
  const relay = await step(blocks[9]).then(
    (stdout) => ({ stdout, error: undefined }),
    (error: Error & { stdout?: string }) => ({ stdout: error.stdout ?? '', error }),
  );
  await waitFor(
    'the deposit completed',
    async () => (await get(`/deposit-processor/deposits?account=${account}`, key)).deposits[0]?.status === 'completed',
    WAIT_MS,
  );
  const after = (await get(`/deposit-processor/deposits?account=${account}`, key)).deposits;
  expect(after).toEqual([
    expect.objectContaining({ id: deposit.id, stage: 'completed', destinationTxHash: expect.stringMatching(/^0x/) }),
  ]);
  await waitFor('bridge-complete delivered', async () => (await delivered()).length === 3, WAIT_MS);
  expect((await delivered()).map((e: { type: string }) => e.type).sort()).toEqual([
    'bridge-complete',
    'bridge-started',
    'deposit-received',
  ]);
  expect(hooks()).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
  expect(output).toMatch(new RegExp(`^\\[webhook\\] bridge-complete .*"${deposit.id}"`, 'm'));
  // The relayer's Permit2 claim, read from Base Sepolia, completes the intent.
  expect(relay.error?.message).toBeUndefined();
  expect(relay.stdout).toContain(`{"intentId":"${deposit.intentId}","status":"COMPLETED"}`);
  expect(relay.stdout).toContain('"status":"completed"');
  expect(await get(`/intent-operation/${deposit.intentId}`, key)).toMatchObject({ status: 'COMPLETED' });
  // The claim was Permit2's pull: the account's USDC on Base Sepolia is the deposit less what the element spent.
  const bridge = await get(`/intent-operation/${deposit.intentId}?full=true`, key);
  const [[, pulled]] = bridge.intentOp.elements[0].idsAndAmounts;
  const base = createPublicClient({ transport: http(`http://127.0.0.1:${portBase}`) });
  const usdc = getAddress(deposit.token);
  expect(
    await base.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [account as Hex] }),
  ).toBe(5_000_000n - BigInt(pulled));

  // Every event the service ingested came from its chain indexer (ids `chain:<chainId>:…`), none was posted.
  const db = await openDatabase(env.DATABASE_URL, 1);
  try {
    const ids: { id: string }[] = await db.query('SELECT id FROM indexer_events');
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.filter(({ id }) => !/^chain:(84532|421614):/.test(id))).toEqual([]);
  } finally {
    await db.destroy();
  }
});
