import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createPublicClient, erc20Abi, getAddress, http, parseAbiItem, type Hex } from 'viem';
import { projectRoot, waitFor } from '../../src/dev/processes';
import { DevnetRun, interrupt, relayedLine, type Terminal } from '../support/devnet';
import { freePort } from '../support/global-setup';

/**
 * `npm run relayer` killed -9 right after it sent its fill, then right after it sent its claim (FAULT_INJECTION's
 * crash points), started again each time: the intent is filled once and claimed once, read from the chains (the
 * filler's `Filled` events of its nonce, The Compact's `Claim` of it through the arbiter, the balances), and reads
 * COMPLETED. Each step
 * runs again `RELAYER_STEP_TIMEOUT_SECONDS` after a crash, 5 s here.
 */
jest.setTimeout(600_000);

const run = promisify(execFile);
// Generous: a relayer bundles its workflows as it starts, which a loaded machine (the suites run in parallel) slows.
const WAIT_MS = 150_000;
const RELAYER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const USER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

const stack = new DevnetRun();
let relayer: Terminal | undefined;

beforeAll(async () => {
  await stack.prepare({ RELAYER_STEP_TIMEOUT_SECONDS: '5', RELAYER_RETRY_SECONDS: '1' });
  await stack.start('npm run devnet');
});
afterAll(async () => {
  if (relayer) await interrupt(relayer);
  await stack.stop();
});

const sh = async (command: string) =>
  (await run('bash', ['-c', command], { cwd: projectRoot, env: stack.env })).stdout.trim();

/** The relayer, by itself (not through npm): the process that kills itself is the one whose end we see. */
async function startRelayer(relayerKey: string, faults?: string, metricsPort = 0): Promise<Terminal> {
  const t = stack.terminal('exec node --import tsx src/main/relayer.ts --devnet', {
    RELAYER_KEY: relayerKey,
    RELAYER_METRICS_PORT: String(metricsPort),
    ...(faults ? { NODE_ENV: 'test', FAULT_INJECTION: faults } : {}),
  });
  await waitFor('the relayer', async () => t.output().includes('Relayer up'), WAIT_MS);
  return t;
}

/** Waits for the relayer to kill itself at its crash point; if it does not, fails with what it printed. */
const killed = (t: Terminal) =>
  waitFor('the relayer killed by its crash point', async () => t.proc.signalCode === 'SIGKILL', WAIT_MS).catch(
    (e: Error) => {
      throw new Error(`${e.message}; it printed:\n${t.output()}`);
    },
  );

test('killed -9 after its fill was sent and after its claim was sent: exactly one fill and one claim', async () => {
  const { apiKey } = JSON.parse(await sh('npm run -s cli -- projects create crash | tail -1'));
  const { relayerKey } = JSON.parse(await sh('npm run -s cli -- relayers add crash-relayer | tail -1'));
  await sh('npm run -s devnet:deposit -- 84532 10');
  const locked = async () =>
    (await stack.get(`/accounts/${USER}/portfolio`, apiKey)).portfolio
      .flatMap((t: { tokenChainBalance: unknown[] }) => t.tokenChainBalance)
      .find((c: { chainId: number }) => c.chainId === 84532)?.balance.locked;
  await waitFor('the deposit read', async () => (await locked()) === '10000000', WAIT_MS);

  const first = await startRelayer(relayerKey, 'relayer-after-fill-sent');
  const intentId = await sh(`npm run -s devnet:intent -- "${apiKey}" 421614 5`);
  await killed(first);

  const second = await startRelayer(relayerKey, 'relayer-after-claim-sent');
  await killed(second);
  expect(relayedLine(second.output(), intentId)).toBeUndefined();

  const metricsPort = await freePort();
  relayer = await startRelayer(relayerKey, undefined, metricsPort);
  await waitFor('the intent relayed', async () => relayedLine(relayer!.output(), intentId) !== undefined, WAIT_MS);
  const outcome = JSON.parse(relayedLine(relayer.output(), intentId)!);
  expect(outcome).toMatchObject({
    outcome: 'claimed',
    fill: expect.stringMatching(/^0x/),
    claims: [expect.any(String)],
  });
  await waitFor(
    'COMPLETED',
    async () => (await stack.get(`/intent-operation/${intentId}`, apiKey)).status === 'COMPLETED',
    WAIT_MS,
  );

  // Its counters, since this start: the claim it resumed, mined on Base Sepolia, and the intent's fees.
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  expect(metrics).toContain('relayer_claims_total{chain="84532",status="mined"} 1');
  expect(metrics).toContain('relayer_intents_total{outcome="claimed"} 1');
  expect(metrics).toMatch(/^relayer_gas_spent_wei_total\{chain="84532"\} [1-9]/m);
  expect(metrics).toMatch(/^relayer_fees_earned_total\{symbol="USDC"\} [1-9]/m);
  expect(metrics).not.toContain('relayer_fills_total{');

  // On chain: one Filled of the intent's nonce on Arbitrum Sepolia, one Claim of it on Base Sepolia.
  const { chains } = stack.described();
  const [base, arb] = [84532, 421614].map((id) => chains.find((c) => c.chainId === id)!);
  const client = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl) });
  const fills = await client(arb.rpcUrl).getLogs({
    address: arb.filler,
    event: parseAbiItem(
      'event Filled(uint256 indexed nonce, address indexed recipient, address token, uint256 amount)',
    ),
    args: { nonce: BigInt(intentId) },
    fromBlock: 0n,
  });
  expect(fills.map((l) => l.transactionHash)).toEqual([outcome.fill]);
  const claims = await client(base.rpcUrl).getLogs({
    address: base.compact,
    event: parseAbiItem(
      'event Claim(address indexed sponsor, address indexed allocator, address indexed arbiter, bytes32 claimHash, uint256 nonce)',
    ),
    args: { sponsor: getAddress(USER) },
    fromBlock: 0n,
  });
  const ofIntent = claims.filter((l) => l.args.nonce === BigInt(intentId));
  expect(ofIntent.map((l) => l.transactionHash)).toEqual(outcome.claims);
  // Claimed through the devnet's IntentArbiter, with the service's attestation of the relayer's fill.
  expect(ofIntent[0].args.arbiter).toBe(getAddress(base.arbiter));

  // And the balances: the user was paid the fill once, the relayer the lock once.
  const op = (await stack.get(`/intent-operation/${intentId}?full=true`, apiKey)).intentOp;
  const [[, spent]] = op.elements[0].idsAndAmounts;
  const [[, paid]] = op.elements[0].mandate.tokenOut;
  const usdc = (chain: typeof base, owner: Hex) =>
    client(chain.rpcUrl).readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  expect(await usdc(arb, USER)).toBe(1_000_000_000n + BigInt(paid));
  expect(await usdc(arb, RELAYER)).toBe(1_000_000_000n - BigInt(paid));
  expect(await usdc(base, RELAYER)).toBe(1_000_000_000n + BigInt(spent));
});
