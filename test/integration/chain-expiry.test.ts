import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { waitFor } from '../../src/dev/processes';
import { compactAddress } from '../../src/compact/config';
import { availableBalances } from '../../src/ledger/store';
import { Api, call, startApi, startWorker } from '../support/harness';
import { ARB_USDC, BASE_USDC } from '../support/fixtures';
import { authorizedClaim, submitOwnIntent } from '../support/intents';
import { registerManaged } from '../support/deposits';
import { newProject, subscribe } from '../support/projects';
import { Receiver } from '../support/receiver';
import {
  compactAt,
  deployContract,
  deposit,
  fundDeposits,
  startIndexedChain,
  tokenAt,
  type IndexedChain,
} from '../support/indexed-chain';

/**
 * Expired holds free themselves: the chain indexer snapshots, at a block stamped at or after `expires`, every balance
 * whose holds are past it, so an intent that is never filled or claimed frees its funds with no other activity on
 * the account; and only at the confirmation depth, so a reorg cannot undo a release. Base's balances are shown at
 * depth 0 and settle at depth 2. Windows of a few seconds (settings of this suite's own API and worker), so the
 * clock-skew rule stays.
 */
jest.setTimeout(120_000);

let api: Api;
let base: IndexedChain;
let arb: IndexedChain;
let compact: Hex;
let lockTag: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  api = await startApi({
    ownDatabase: true,
    settings: {
      INTENT_FILL_WINDOW_SECONDS: '2',
      INTENT_FILL_GRACE_SECONDS: '0',
      INTENT_CLAIM_WINDOW_SECONDS: '2',
      DEPOSIT_BRIDGE_TIMEOUT_SECONDS: '2',
    },
  });
  const health = (await call(api, 'GET', '/health')).json;
  lockTag = health.lockTag;
  [base, arb] = [await startIndexedChain(8453), await startIndexedChain(42161)];
  // Where the service signs claims and its clients sign intents, with the service's allocator its lock tag names.
  compact = await compactAt(base, compactAddress(api.env.env) as Hex, health.allocatorAddress);
  await tokenAt(base, BASE_USDC);
  await fundDeposits(base, compact, BASE_USDC);
  const filler = await deployContract(arb, 'Filler');
  await tokenAt(arb, ARB_USDC);
  await startWorker({
    ...api.env,
    env: {
      ...api.env.env,
      INDEXER_CHAINS: '8453,42161',
      RPC_URL_8453: base.local.url,
      RPC_URL_42161: arb.local.url,
      INDEXER_COMPACT_8453: compact,
      INDEXER_FILL_CONTRACT_42161: filler,
      INDEXER_CONFIRMATIONS_8453: '0',
      INDEXER_SETTLEMENT_CONFIRMATIONS_8453: '2',
      INDEXER_POLL_MS: '200',
    },
  });
}, 120_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all([base, arb].map((c) => c?.local.stop()));
  await api.close();
});

const eventually = (what: string, probe: () => Promise<boolean>) => waitFor(what, probe, 60_000);
/** Base's settlement depth: what is mined is confirmed once this many blocks are on top of it. */
const confirm = () => base.test.mine({ blocks: 2 });
/** Empty blocks on Base, one per look: the chain's clock moves past `expires` with nothing else happening on it. */
const afterEmptyBlocks = (what: string, probe: () => Promise<boolean>) =>
  eventually(what, async () => {
    await base.test.mine({ blocks: 1 });
    return probe();
  });
const available = async (account: string) =>
  (await availableBalances(api.db.manager, account, lockTag)).find((b) => b.chainId === '8453')?.available;
/** 5 USDC into the account's lock on Base, confirmed: the ledger can reserve them. */
async function lockFunds(account: Hex) {
  await deposit(base, compact, lockTag, BASE_USDC, account, 5_000_000n);
  await confirm();
  await eventually('the locked funds', async () => (await available(account)) === '5000000');
}
const held = async (intentId: string) =>
  (
    await api.db.query(
      "SELECT 1 FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1 AND released_at IS NULL",
      [intentId],
    )
  ).length > 0;

test('expired holds free themselves: an intent never filled, past expires with empty blocks, frees its locked funds', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await lockFunds(sponsor.address);
  const intentId = await submitOwnIntent(api, sponsor);
  expect(await held(intentId)).toBe(true);
  expect(BigInt((await available(sponsor.address))!)).toBeLessThan(5_000_000n);

  await eventually(
    'EXPIRED',
    async () => (await call(api, 'GET', `/intent-operation/${intentId}`)).json.status === 'EXPIRED',
  );
  await afterEmptyBlocks('the hold released', async () => !(await held(intentId)));
  expect(await available(sponsor.address)).toBe('5000000');
});

test("expired holds free themselves: a deposit's unfilled bridge, past expires with empty blocks, goes to its retry", async () => {
  const p = await newProject(api, 'chain-expiry');
  const r = await new Receiver([]).start();
  receivers.push(r);
  await subscribe(p, r);
  const { address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
  await base.send(BASE_USDC, 'TestToken', 'mint', [base.sender.address, 5_000_000n]);
  await base.send(BASE_USDC, 'TestToken', 'transfer', [address, 5_000_000n]);
  await confirm();
  const webhooks = () =>
    [...r.accepted.values()].filter((d) => d.json.data.account === address.toLowerCase()).map((d) => d.json);
  await eventually('bridge-started', async () => webhooks().some((w) => w.type === 'bridge-started'));
  const first = webhooks().find((w) => w.type === 'bridge-started').data.intentId;

  // Nobody fills it: past its expires its hold on the account's wallet is released, and the deposit tries again.
  await afterEmptyBlocks('bridge-failed', async () => webhooks().some((w) => w.type === 'bridge-failed'));
  expect(webhooks().find((w) => w.type === 'bridge-failed').data).toMatchObject({
    intentId: first,
    retryable: true,
    attempt: 1,
  });
  expect(await held(first)).toBe(false);
});

test('irreversible decisions wait for confirmation: a release at expires seen on a branch a reorg abandons makes no second reservation', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await lockFunds(sponsor.address);
  const intentId = await submitOwnIntent(api, sponsor);
  const { intentOp } = (await call(api, 'GET', `/intent-operation/${intentId}?full=true`)).json;
  const expires = Number(intentOp.expires);
  // The relayer's claim, authorized while the intent is live (the service refuses one past `expires`).
  const claim = await authorizedClaim(api, base, intentId, (_, amount) => [
    { claimant: BigInt(base.sender.address), amount },
  ]);
  const fork = await base.test.snapshot();

  // The branch that loses: past `expires` with no claim, a block that moves the sponsor's lock, read at depth 0 (the
  // portfolio shows its 1 unit more). Its snapshot, stamped past `expires`, would release A's hold for another intent.
  await eventually(
    'the hold past expires',
    async () =>
      (
        await api.db.query(
          "SELECT 1 FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1 AND release_after_time IS NOT NULL",
          [intentId],
        )
      ).length > 0,
  );
  await deposit(base, compact, lockTag, BASE_USDC, sponsor.address, 1n);
  const shownLocked = async () =>
    (await call(api, 'GET', `/accounts/${sponsor.address}/portfolio`)).json.portfolio?.[0]?.tokenChainBalance?.find(
      (c: { chainId: number }) => c.chainId === 8453,
    )?.balance.locked;
  await eventually('the losing block read at depth 0', async () => (await shownLocked()) === '5000001');
  expect(await held(intentId)).toBe(true);
  const second = await call(api, 'POST', '/intents/route', {
    body: {
      account: { address: sponsor.address, accountType: 'EOA', setupOps: [] },
      destinationChainId: 42161,
      tokenRequests: [{ tokenAddress: ARB_USDC, amount: '4500000' }],
    },
  });
  expect(second.status).toBe(400);

  // The branch that wins carries A's claim, mined before `expires`: the funds a release there freed were never free.
  await base.test.revert({ id: fork });
  await base.test.setNextBlockTimestamp({ timestamp: BigInt(expires - 1) });
  const [[, amount]] = intentOp.elements[0].idsAndAmounts;
  await claim();
  await afterEmptyBlocks('the claim settled', async () => !(await held(intentId)));
  expect(await available(sponsor.address)).toBe((5_000_000n - BigInt(amount)).toString());
});
