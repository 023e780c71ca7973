import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPublicClient, erc20Abi, getAddress, http, type Hex } from 'viem';
import { openDatabase } from '../../src/db/data-source';
import { projectRoot, waitFor } from '../../src/dev/processes';
import { DevnetRun, interrupt, relayedLine, type Terminal } from '../support/devnet';

/**
 * The devnet walk-through of docs/chain-indexer.md, run as written: its command blocks, in their order, in a shell
 * that keeps their variables from one block to the next, against `npm run devnet` (on free ports, with a database
 * and a task queue of its own on the run's Temporal dev server), each step's outcome checked through the API.
 * The only changes to the blocks are the ports (`localhost:3000`, the receiver's 8547) and the devnet's
 * `--port-base` and `--block-time 1`. The devnet's and the relayer's blocks run in the background, as in terminals
 * of their own, until the end.
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

const stack = new DevnetRun();
let devnet: Terminal;
let relayer: Terminal | undefined;
let stateFile: string;
let blocks: string[];
const output = () => devnet.output();
const get = (route: string, key: string) => stack.get(route, key);
const relayed = (intentId: string) => (relayer ? relayedLine(relayer.output(), intentId) : undefined);

const localize = (block: string) =>
  block
    .replaceAll('localhost:3000', `127.0.0.1:${stack.apiPort}`)
    .replaceAll('127.0.0.1:8547', `127.0.0.1:${stack.portBase + 2}`);

/** Runs a block in bash (stops at the first failing command) with the variables earlier blocks set. */
async function step(block: string): Promise<string> {
  const script = `set -a\n. '${stateFile}'\nset -e\n${localize(block)}\nexport -p > '${stateFile}'\n`;
  const { stdout } = await run('bash', ['-c', script], { cwd: projectRoot, env: stack.env, maxBuffer: 16 << 20 });
  return stdout;
}

/** A variable the blocks have set. */
async function shellVar(name: string): Promise<string> {
  return (await run('bash', ['-c', `. '${stateFile}'; printf %s "$${name}"`], { env: stack.env })).stdout;
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
  await stack.prepare();
  stateFile = path.join(stack.dataDir, 'walkthrough.env');
  fs.writeFileSync(stateFile, '');
});

afterAll(async () => {
  if (relayer) await interrupt(relayer);
  await stack.stop();
});

test('the devnet walk-through: deposit, portfolio, an SDK 1.15.0 intent relayed to COMPLETED, and a deposit bridged to completion with its webhooks, all read from the chains', async () => {
  expect(blocks).toHaveLength(10);

  // 1. The devnet, in a terminal of its own.
  expect(blocks[0]).toBe('npm run devnet');
  devnet = await stack.start(blocks[0]);
  expect(output()).toContain(`Webhook receiver: http://127.0.0.1:${stack.portBase + 2}/hooks`);

  // 2. A project.
  await step(blocks[1]);
  const key = await shellVar('KEY');
  expect(key).toMatch(/^sk_/);

  // 3. The relayer, in a terminal of its own: it runs until the end of the walk-through.
  relayer = stack.terminal(`set -e\n${localize(blocks[2])}`);
  await waitFor('the relayer', async () => relayer!.output().includes('Relayer up'), WAIT_MS);

  // 4, 5. A deposit into the user's lock, and the portfolio showing it once the indexer has read it.
  await step(blocks[3]);
  await waitFor(
    'the deposit in the portfolio',
    async () => lockedIn(await step(blocks[4]), 84532) === '10000000',
    WAIT_MS,
  );

  // 6. Quoted, signed and submitted with the published client.
  await step(blocks[5]);
  const intentId = await shellVar('INTENT');
  expect(intentId).toMatch(/^\d+$/);
  const submitted = await get(`/intent-operation/${intentId}?full=true`, key);
  expect(submitted).toMatchObject({ userAddress: USER, destinationChainId: 421614 });

  // 7. Relayed by the relayer on its own: filled on the destination, claimed on the origin, COMPLETED as the
  // indexer read both.
  await waitFor('the intent relayed', async () => relayed(intentId) !== undefined, WAIT_MS);
  expect(JSON.parse(relayed(intentId)!)).toMatchObject({ outcome: 'claimed', claims: [expect.stringMatching(/^0x/)] });
  await waitFor(
    'COMPLETED',
    async () => (await get(`/intent-operation/${intentId}`, key)).status === 'COMPLETED',
    WAIT_MS,
  );
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
  const { chains } = stack.described();
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
  // And the fill paid the user on Arbitrum Sepolia, out of the relayer's USDC there.
  const arb = chains.find((c) => c.chainId === 421614)!;
  const arbUsdcOf = (owner: Hex) =>
    createPublicClient({ transport: http(arb.rpcUrl) }).readContract({
      address: arb.usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    });
  const { recipient, tokenOut } = submitted.intentOp.elements[0].mandate;
  const [[, paid]] = tokenOut;
  expect(getAddress(recipient)).toBe(USER);
  expect(await arbUsdcOf(USER)).toBe(1_000_000_000n + BigInt(paid));
  expect(await arbUsdcOf(RELAYER)).toBe(1_000_000_000n - BigInt(paid));

  // 8. A webhook endpoint (the devnet's receiver) and a managed deposit account: a DepositAccount at one address on
  // both chains.
  const registered = await step(blocks[7]);
  expect(registered).toContain('"secret":"whsec_');
  expect(registered).toContain('"managed":true');
  const account = await shellVar('ACCOUNT');
  expect(account).toBe(getAddress(account));
  for (const port of [stack.portBase, stack.portBase + 1]) {
    const chain = createPublicClient({ transport: http(`http://127.0.0.1:${port}`) });
    expect(await chain.getCode({ address: account as Hex })).toMatch(/^0x[0-9a-f]{2,}$/);
  }

  // 9. A transfer into the account: its webhooks reach the receiver.
  await step(blocks[8]);
  await waitFor(
    'deposit-received and bridge-started',
    async () => /\[webhook\] bridge-started /.test(output()),
    WAIT_MS,
  );
  const hooks = () =>
    output()
      .split('\n')
      .filter((l) => l.startsWith('[webhook] '))
      .map((l) => l.split(' ')[1]);
  // The relayer fills the bridge as soon as the feed shows it: the deposit may be past bridging already.
  expect(hooks().slice(0, 2)).toEqual(['deposit-received', 'bridge-started']);
  const [deposit] = (await get(`/deposit-processor/deposits?account=${account}`, key)).deposits;
  expect(deposit).toMatchObject({ chain: 'eip155:84532', amount: '5000000', sender: USER });
  expect(['bridging', 'completed']).toContain(deposit.stage);
  const delivered = async () =>
    (await get('/deposit-processor/webhooks/events', key)).events.filter(
      (e: { status: string; depositId: string }) => e.status === 'delivered' && e.depositId === deposit.id,
    );
  await waitFor('the deliveries recorded', async () => (await delivered()).length >= 2, WAIT_MS);

  // 10. The bridge's intent relayed by the relayer on its own: filled on Arbitrum Sepolia, which completes the
  // deposit (its fill paid the account, read in the fill's range: the bridge's arrival, no deposit), and claimed
  // through Permit2 from the account on Base Sepolia, which completes the intent.
  await waitFor('the bridge relayed', async () => relayed(deposit.intentId) !== undefined, WAIT_MS);
  expect(JSON.parse(relayed(deposit.intentId)!)).toMatchObject({ outcome: 'claimed' });
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
  expect(output()).toMatch(new RegExp(`^\\[webhook\\] bridge-complete .*"${deposit.id}"`, 'm'));
  // The relayer's Permit2 claim, read from Base Sepolia, completes the intent.
  expect(await step(blocks[9])).toContain('"status":"completed"');
  await waitFor(
    'the bridge COMPLETED',
    async () => (await get(`/intent-operation/${deposit.intentId}`, key)).status === 'COMPLETED',
    WAIT_MS,
  );
  // The claim was Permit2's pull: the account's USDC on Base Sepolia is the deposit less what the element spent.
  const bridge = await get(`/intent-operation/${deposit.intentId}?full=true`, key);
  const [[, pulled]] = bridge.intentOp.elements[0].idsAndAmounts;
  const base = createPublicClient({ transport: http(`http://127.0.0.1:${stack.portBase}`) });
  const usdc = getAddress(deposit.token);
  expect(
    await base.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [account as Hex] }),
  ).toBe(5_000_000n - BigInt(pulled));
  // The relayer was paid what Permit2 pulled on Base Sepolia, and paid the bridge's recipient on Arbitrum Sepolia.
  const bridged = bridge.intentOp.elements[0].mandate;
  const [[, bridgePaid]] = bridged.tokenOut;
  expect(await usdcOf(RELAYER)).toBe(1_000_000_000n + BigInt(spent) + BigInt(pulled));
  expect(await arbUsdcOf(RELAYER)).toBe(1_000_000_000n - BigInt(paid) - BigInt(bridgePaid));
  const bridgeRecipient = getAddress(bridged.recipient);
  const held = bridgeRecipient === USER ? 1_000_000_000n + BigInt(paid) : 0n; // what it held on Arbitrum before
  expect(await arbUsdcOf(bridgeRecipient)).toBe(held + BigInt(bridgePaid));

  // Every event the service ingested came from its chain indexer (ids `chain:<chainId>:…`), none was posted.
  const db = await openDatabase(stack.env.DATABASE_URL, 1);
  try {
    const ids: { id: string }[] = await db.query('SELECT id FROM indexer_events');
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.filter(({ id }) => !/^chain:(84532|421614):/.test(id))).toEqual([]);
  } finally {
    await db.destroy();
  }
});
