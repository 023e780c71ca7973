import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseAbi, parseEventLogs, type Abi, type Hex } from 'viem';
import artifacts from '../../solidity/artifacts.json';
import { waitFor } from '../../src/dev/processes';
import { tokenId } from '../../src/intents/quote';
import { proveAccount } from '../../src/projects/account-store';
import { Api, call, startApi, startWorker } from '../support/harness';
import { ARB_USDC, BASE_USDC } from '../support/fixtures';
import { authorizedClaim, submitOwnIntent } from '../support/intents';
import { DP, projectSigner, registerManaged } from '../support/deposits';
import { newProject, subscribe, type Project } from '../support/projects';
import { Receiver } from '../support/receiver';
import {
  compactAt,
  contractAt,
  deployContract,
  deposit,
  fundDeposits,
  startIndexedChain,
  tokenAt,
  type IndexedChain,
} from '../support/indexed-chain';
import { permit2WitnessCall } from '../../src/intents/permit2-call';
import { PERMIT2_ADDRESS } from '../../src/intents/typed-data';
import { compactAddress } from '../../src/compact/config';
import { resetPeriodSeconds } from '../../src/chains/lock-tag';

/**
 * The chain indexer against real chains: anvil chains serve Base (origin: our DevnetCompact with the service's
 * allocator, USDC) and Arbitrum (destination: our filler, USDC), and Optimism and Polygon for the reorgs; a worker
 * that follows them reads them, and what happens on chain is observed through the HTTP API only: no event is posted
 * by hand. Deposits, withdrawals and claims are real ones: the compact takes and pays the tokens, and checks the
 * service's signatures.
 */
jest.setTimeout(120_000);

let api: Api;
let base: IndexedChain;
let arb: IndexedChain;
let op: IndexedChain;
let polygon: IndexedChain;
let compact: Hex;
let filler: Hex;
let lockTag: string;
const POLYGON_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const OP_USDC = '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85';
const receivers: Receiver[] = [];
const ARBITER = privateKeyToAccount(generatePrivateKey()).address;
const COMPACT_ABI = artifacts.DevnetCompact.abi as Abi;

beforeAll(async () => {
  // Anvil's blocks are numbered from 0 at today's timestamps: kept apart from the stamped events of other suites.
  // The arbiter quotes name: Permit2 pays only it and The Compact takes claims only from it, so the test claims as it.
  api = await startApi({ ownDatabase: true, settings: { INTENT_ARBITER: ARBITER } });
  const health = (await call(api, 'GET', '/health')).json;
  lockTag = health.lockTag;
  [base, arb, op, polygon] = [
    await startIndexedChain(8453),
    await startIndexedChain(42161),
    await startIndexedChain(10),
    await startIndexedChain(137),
  ];
  // Where the service signs claims and its clients sign intents, with the service's allocator its lock tag names.
  compact = compactAddress(api.env.env) as Hex;
  for (const [chain, usdc] of [
    [base, BASE_USDC],
    [op, OP_USDC],
    [polygon, POLYGON_USDC],
  ] as const) {
    await compactAt(chain, compact, health.allocatorAddress);
    await tokenAt(chain, usdc);
    await fundDeposits(chain, compact, usdc);
  }
  await contractAt(base, 'Permit2', PERMIT2_ADDRESS);
  filler = await deployContract(arb, 'Filler');
  await tokenAt(arb, ARB_USDC);
  await startWorker({
    ...api.env,
    env: {
      ...api.env.env,
      INDEXER_CHAINS: '8453,42161,10,137',
      RPC_URL_8453: base.local.url,
      RPC_URL_42161: arb.local.url,
      RPC_URL_10: op.local.url,
      RPC_URL_137: polygon.local.url,
      INDEXER_COMPACT_8453: compact,
      INDEXER_COMPACT_10: compact,
      INDEXER_COMPACT_137: compact,
      INDEXER_CONFIRMATIONS_8453: '2',
      INDEXER_SETTLEMENT_CONFIRMATIONS_8453: '2',
      // Small ranges: the backfill of a few dozen blocks takes several.
      INDEXER_BLOCK_RANGE_8453: '5',
      INDEXER_FILL_CONTRACT_42161: filler,
      INDEXER_CONFIRMATIONS_42161: '0',
      INDEXER_SETTLEMENT_CONFIRMATIONS_42161: '1',
      // The reorg tests: a depth greater than the reorg's, and none.
      INDEXER_CONFIRMATIONS_10: '3',
      INDEXER_CONFIRMATIONS_137: '0',
      INDEXER_SETTLEMENT_CONFIRMATIONS_137: '2',
      INDEXER_POLL_MS: '1000',
    },
  });
}, 120_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await Promise.all([base, arb, op, polygon].map((c) => c?.local.stop()));
  await api.close();
});

/** Base's confirmation depth: what is mined is reported once this many blocks are on top of it. */
const confirm = () => base.test.mine({ blocks: 2 });
const lockId = (token: string) => BigInt(tokenId(lockTag, token));
/** A deposit of the test's own USDC into the service's lock for `account`: one transaction. */
const depositOn = (chain: IndexedChain, usdc: Hex, account: Hex, amount: bigint) =>
  deposit(chain, compact, lockTag, usdc, account, amount);

async function usdcOn(chainId: number, account: string): Promise<{ locked: string; unlocked: string } | undefined> {
  const { json } = await call(api, 'GET', `/accounts/${account}/portfolio`);
  return json.portfolio
    ?.flatMap((t: { tokenChainBalance: { chainId: number; balance: { locked: string; unlocked: string } }[] }) =>
      t.tokenChainBalance.filter((c) => c.chainId === chainId),
    )
    .map((c: { balance: { locked: string; unlocked: string } }) => c.balance)[0];
}
const baseUsdc = (account: string) => usdcOn(8453, account);

const eventually = (what: string, probe: () => Promise<boolean>) => waitFor(what, probe, 60_000);

/** JSON with its integers as strings: the withdrawal's ids and nonces exceed a double's precision. */
const parseExact = (text: string) => JSON.parse(text.replace(/([:[,]\s*)(\d+)(?=\s*[,}\]])/g, '$1"$2"'));

test('a deposit into a lock and a withdrawal from it show in the portfolio once confirmed', async () => {
  const account = privateKeyToAccount(generatePrivateKey()).address;
  await depositOn(base, BASE_USDC, account, 5_000_000n);
  await confirm();
  await eventually('the deposit in the portfolio', async () => (await baseUsdc(account))?.locked === '5000000');
  // The withdrawal the service allocates, made by the account.
  await proveAccount(api.db.manager, api.projectId, account, 'operator');
  const res = await call(api, 'POST', '/withdrawals', {
    body: { account, chainId: 8453, tokenAddress: BASE_USDC, amount: '2000000', recipient: account },
  });
  expect(res.status).toBe(200);
  const { allocatorData, transferDetails: t } = parseExact(res.text);
  const recipients = t.recipients.map((r: { claimant: string; amount: string }) => ({
    claimant: BigInt(r.claimant),
    amount: BigInt(r.amount),
  }));
  const transfer = { allocatorData, nonce: BigInt(t.nonce), expires: BigInt(t.expires), id: BigInt(t.id), recipients };
  await base.send(compact, 'DevnetCompact', 'allocatedTransfer', [transfer], account);
  // Not yet confirmed: the portfolio still shows the deposit; two blocks later it shows the withdrawal.
  expect((await baseUsdc(account))?.locked).toBe('5000000');
  await confirm();
  await eventually('the withdrawal in the portfolio', async () => (await baseUsdc(account))?.locked === '3000000');
});

test('a fill proves payment: fills paying less or elsewhere are refused, the real fill after them and its Claim complete the intent', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await depositOn(base, BASE_USDC, sponsor.address, 10_000_000n);
  await confirm();
  await eventually('the funds', async () => (await baseUsdc(sponsor.address))?.locked === '10000000');
  const intentId = await submitOwnIntent(api, sponsor);
  const status = async () => (await call(api, 'GET', `/intent-operation/${intentId}`)).json.status;
  expect(await status()).toBe('PENDING');

  await arb.send(ARB_USDC, 'TestToken', 'mint', [arb.sender.address, 2_000_000n]);
  await arb.send(ARB_USDC, 'TestToken', 'approve', [filler, 2_000_000n]);
  // A fill proves payment: fills of the intent's nonce that pay 1 unit to their sender, or one unit short to its
  // recipient, are refused and do not hold the relayer's real fill, mined after them, back.
  const fakes = [
    await arb.send(filler, 'Filler', 'fill', [BigInt(intentId), ARB_USDC, arb.sender.address, 1n]),
    await arb.send(filler, 'Filler', 'fill', [BigInt(intentId), ARB_USDC, sponsor.address, 999_999n]),
  ];
  const real = await arb.send(filler, 'Filler', 'fillTokenOut', [
    BigInt(intentId),
    sponsor.address,
    [[BigInt(tokenId(lockTag, ARB_USDC)), 1_000_000n]],
  ]);
  await arb.test.mine({ blocks: 1 }); // a fill is reported one block deep (settlement depth 1)
  await eventually('the fill', async () => (await status()) === 'FILLED');
  const filled = (await call(api, 'GET', `/intent-operation/${intentId}?full=true`)).json;
  expect(filled.fillTransactionHash).toBe(real);
  expect(fakes).not.toContain(real);

  // The relayer's claim through the compact, from the arbiter the intent names: its allocated amount, paid in USDC.
  const claim = await authorizedClaim(api, base, intentId, (_, amount) => [
    { claimant: BigInt(base.sender.address), amount },
  ]);
  await claim();
  await confirm();
  await eventually('the claim', async () => (await status()) === 'COMPLETED');
  const full = (await call(api, 'GET', `/intent-operation/${intentId}?full=true`)).json;
  expect(full.claims).toEqual([expect.objectContaining({ chainId: 8453 })]);
  // The claim's transfer out of the lock is reported too.
  const [[, claimed]] = full.intentOp.elements[0].idsAndAmounts;
  await eventually(
    'the claimed lock',
    async () => (await baseUsdc(sponsor.address))?.locked === (10_000_000n - BigInt(claimed)).toString(),
  );
});

test('a forced withdrawal being enabled stops allocation from the lock; disabling it frees it again', async () => {
  const account = privateKeyToAccount(generatePrivateKey()).address;
  await depositOn(base, BASE_USDC, account, 1_000_000n);
  await proveAccount(api.db.manager, api.projectId, account, 'operator');
  const withdraw = () =>
    call(api, 'POST', '/withdrawals', {
      body: { account, chainId: 8453, tokenAddress: BASE_USDC, amount: '1', recipient: account },
    });
  // The account starts it: withdrawable once the lock's reset period passed, far beyond this test, so pending.
  const enabled = await base.send(compact, 'DevnetCompact', 'enableForcedWithdrawal', [lockId(BASE_USDC)], account);
  const { logs, blockNumber } = await base.public.getTransactionReceipt({ hash: enabled });
  const [status] = parseEventLogs({ abi: COMPACT_ABI, logs, eventName: 'ForcedWithdrawalStatusUpdated' });
  const { timestamp } = await base.public.getBlock({ blockNumber });
  expect(status.args).toEqual({
    account,
    id: lockId(BASE_USDC),
    activating: true,
    withdrawableAt: timestamp + BigInt(resetPeriodSeconds(lockTag)),
  });
  await confirm();
  await eventually('the pending forced withdrawal', async () => {
    const res = await withdraw();
    return res.status === 400 && /forced withdrawal is pending/.test(res.json.message);
  });
  await base.send(compact, 'DevnetCompact', 'disableForcedWithdrawal', [lockId(BASE_USDC)], account);
  await confirm();
  await eventually('the disabled forced withdrawal', async () => (await withdraw()).status === 200);
});

describe('deposit accounts', () => {
  let p: Project;
  let r: Receiver;
  beforeAll(async () => {
    p = await newProject(api, 'chain-indexer');
    r = await new Receiver([]).start();
    receivers.push(r);
    await subscribe(p, r);
  });
  const webhooks = (account: string) =>
    [...r.accepted.values()].filter((d) => d.json.data.account === account.toLowerCase()).map((d) => d.json);

  test('a transfer into a deposit account registered after the indexer started becomes a deposit with its webhook', async () => {
    const { address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
    await base.send(BASE_USDC, 'TestToken', 'mint', [base.sender.address, 3_000_000n]);
    const txHash = await base.send(BASE_USDC, 'TestToken', 'transfer', [address, 3_000_000n]);
    await confirm();
    await eventually('deposit-received', async () => webhooks(address).some((w) => w.type === 'deposit-received'));
    expect(webhooks(address).find((w) => w.type === 'deposit-received').data).toMatchObject({
      chain: 'eip155:8453',
      token: BASE_USDC.toLowerCase(),
      amount: '3000000',
      transactionHash: txHash,
      sender: base.sender.address.toLowerCase(),
    });
    const listed = (await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits;
    expect(listed).toEqual([expect.objectContaining({ amount: '3000000', logIndex: 0, chain: 'eip155:8453' })]);
    // Its balance snapshot, which the deposit's intent spends, came with it.
    expect((await baseUsdc(address))?.unlocked).toBe('3000000');
  });

  test("the fill of the account's own bridge paying it is no second deposit; a fill of another intent paying it is one", async () => {
    // The default target recipient: the account itself, which the bridge's fill pays on Arbitrum.
    const { address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
    await base.send(BASE_USDC, 'TestToken', 'mint', [base.sender.address, 5_000_000n]);
    const txHash = await base.send(BASE_USDC, 'TestToken', 'transfer', [address, 5_000_000n]);
    await confirm();
    await eventually('bridge-started', async () => webhooks(address).some((w) => w.type === 'bridge-started'));
    const started = webhooks(address).find((w) => w.type === 'bridge-started').data;
    const amount = BigInt(started.destination.amount);
    await arb.send(ARB_USDC, 'TestToken', 'mint', [arb.sender.address, amount + 1_000_000n]);
    await arb.send(ARB_USDC, 'TestToken', 'approve', [filler, amount + 1_000_000n]);
    const fillTx = await arb.send(filler, 'Filler', 'fill', [BigInt(started.intentId), ARB_USDC, address, amount]);
    // An intent of no account of ours paying the account, in a later block: a deposit, in the target token already.
    const otherTx = await arb.send(filler, 'Filler', 'fill', [987_654_321n, ARB_USDC, address, 1_000_000n]);
    await arb.test.mine({ blocks: 1 });
    const deposits = async () =>
      (await call(p, 'GET', `${DP}/deposits?account=${address}`)).json.deposits as {
        txHash: string;
        destinationTxHash: string | null;
      }[];
    // Ranges are ingested in order: once the later fill's deposit is there, the bridge's fill was read too.
    await eventually("the other fill's deposit", async () => (await deposits()).some((d) => d.txHash === otherTx));
    const listed = await deposits();
    expect(listed.map((d) => d.txHash).sort()).toEqual([txHash, otherTx].sort());
    // The bridge's arrival is recorded as its destination transaction.
    expect(listed.find((d) => d.txHash === txHash)?.destinationTxHash).toBe(fillTx);
  });

  test("every settlement is seen: a contract deposit account's bridge, filled and then claimed through Permit2, completes", async () => {
    // A managed account as a real one is: a contract accepting the project's session signer (ERC-1271) that
    // approved Permit2, so the claim checks the signer's permit end to end.
    const signer = (await call(p, 'GET', `${DP}/chains`)).json.sessionSigner;
    const address = await deployContract(base, 'DepositAccount', [signer, [BASE_USDC]]);
    const { address: owner } = privateKeyToAccount(generatePrivateKey());
    const registered = await call(p, 'POST', `${DP}/register-managed`, {
      body: {
        account: { address, owner, sessionSigner: signer, target: { chain: 'eip155:42161', token: ARB_USDC } },
      },
    });
    expect(registered.status).toBe(201);
    await base.send(BASE_USDC, 'TestToken', 'mint', [base.sender.address, 5_000_000n]);
    await base.send(BASE_USDC, 'TestToken', 'transfer', [address, 5_000_000n]);
    await confirm();
    await eventually('bridge-started', async () => webhooks(address).some((w) => w.type === 'bridge-started'));
    const { intentId } = webhooks(address).find((w) => w.type === 'bridge-started').data;
    const intent = (await call(p, 'GET', `/intent-operation/${intentId}?full=true`)).json;
    const { tokenOut, recipient } = intent.intentOp.elements[0].mandate;

    const pay = BigInt(tokenOut[0][1]);
    await arb.send(ARB_USDC, 'TestToken', 'mint', [arb.sender.address, pay]);
    await arb.send(ARB_USDC, 'TestToken', 'approve', [filler, pay]);
    await arb.send(filler, 'Filler', 'fillTokenOut', [BigInt(intentId), recipient, [[BigInt(tokenOut[0][0]), pay]]]);
    await arb.test.mine({ blocks: 1 });
    await eventually('bridge-complete', async () => webhooks(address).some((w) => w.type === 'bridge-complete'));

    const element = intent.intentOp.elements[0];
    const { permit, witness, witnessTypeString } = permit2WitnessCall(
      element,
      intent.intentOp.nonce,
      intent.intentOp.expires,
    );
    const details = permit.permitted.map((t) => ({ to: ARBITER, requestedAmount: t.amount }));
    const claimTx = await base.send(
      PERMIT2_ADDRESS,
      'Permit2',
      'permitWitnessTransferFrom',
      [permit, details, address, witness, witnessTypeString, intent.signatures.originSignatures[0]],
      ARBITER,
    );
    await confirm();
    const status = async () => (await call(p, 'GET', `/intent-operation/${intentId}?full=true`)).json;
    await eventually('the Permit2 claim', async () => (await status()).status === 'COMPLETED');
    expect((await status()).claims).toEqual([
      expect.objectContaining({ chainId: 8453, claimTransactionHash: claimTx }),
    ]);
    // The account's wallet balance after the pull (what the bridge spent) is read with it.
    const left = (5_000_000n - permit.permitted[0].amount).toString();
    await eventually('the pulled balance', async () => (await baseUsdc(address))?.unlocked === left);
  });

  test("an unproven registration of a busy wallet holds nothing another project's quote sees; the zero address is refused", async () => {
    // A project registers someone's wallet without its signature (and the wallet enables no session signer).
    const wallet = privateKeyToAccount(generatePrivateKey());
    const squatter = await newProject(api, 'squatter');
    const signer = await projectSigner(squatter);
    const target = { chain: 'eip155:42161', token: ARB_USDC };
    const registered = await call(squatter, 'POST', `${DP}/register-managed`, {
      body: { account: { address: wallet.address, owner: wallet.address, sessionSigner: signer, target } },
    });
    expect(registered.status).toBe(201);
    const zero = await call(squatter, 'POST', `${DP}/register-managed`, {
      body: { account: { address: `0x${'0'.repeat(40)}`, owner: wallet.address, sessionSigner: signer, target } },
    });
    expect(zero.status).toBe(400);
    expect(zero.json.details).toEqual([
      expect.objectContaining({ path: ['body', 'account', 'address'], code: 'reserved' }),
    ]);

    await base.send(BASE_USDC, 'TestToken', 'mint', [wallet.address, 997_000_000n]);
    await base.send(BASE_USDC, 'TestToken', 'mint', [base.sender.address, 300_000_000n]);
    const payment = await base.send(BASE_USDC, 'TestToken', 'transfer', [wallet.address, 300_000_000n]);
    await confirm();
    const listed = async () =>
      (await call(squatter, 'GET', `${DP}/deposits?txHash=${payment}`)).json.deposits as {
        stage: string;
        errorCode: string;
      }[];
    // Recorded for the project to see, and nothing moved.
    await eventually('the recorded deposit', async () => (await listed())[0]?.stage === 'rejected');
    expect((await listed())[0].errorCode).toBe('ACCOUNT-2');
    const held = await api.db.query('SELECT 1 FROM reservations WHERE account = $1 AND released_at IS NULL', [
      wallet.address.toLowerCase(),
    ]);
    expect(held).toHaveLength(0);
    // The wallet's own 1,100 USDC, quoted through another project: all of its 1,297 are there.
    const quote = await call(api, 'POST', '/intents/route', {
      body: {
        account: { address: wallet.address, accountType: 'EOA', setupOps: [] },
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1100000000' }],
        accountAccessList: [{ chainId: 8453, tokenAddress: BASE_USDC }],
      },
    });
    expect(quote.status).toBe(200);
  });

  test('1,000 fake-token logs into one account make no workflow and one recorded deposit (TOKEN-1) per period', async () => {
    const { address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
    const spam = await deployContract(base, 'TransferSpam');
    const txHash = await base.send(spam, 'TransferSpam', 'spam', [address, 1000n]);
    // A real deposit after it, in a later block: once it is there, every spam log was read.
    await base.send(BASE_USDC, 'TestToken', 'mint', [base.sender.address, 2_000_000n]);
    const real = await base.send(BASE_USDC, 'TestToken', 'transfer', [address, 2_000_000n]);
    await confirm();
    const deposits = async () =>
      (await call(p, 'GET', `${DP}/deposits?account=${address}`)).json.deposits as {
        id: string;
        txHash: string;
        stage: string;
        errorCode: string;
      }[];
    await eventually('the real deposit', async () => (await deposits()).some((d) => d.txHash === real));
    const spammed = (await deposits()).filter((d) => d.txHash === txHash);
    expect(spammed).toEqual([expect.objectContaining({ stage: 'rejected', errorCode: 'TOKEN-1' })]);
    const [{ transfers }] = await api.db.query(
      'SELECT sum(transfers)::int AS transfers FROM unsupported_transfers WHERE account = $1',
      [address.toLowerCase()],
    );
    expect(transfers).toBe(1000);
    expect(
      webhooks(address)
        .filter((w) => w.data.depositId === spammed[0].id)
        .map((w) => w.type)
        .sort(),
    ).toEqual(['deposit-received', 'deposit-rejected']);
    // No workflow for it: the spam costs the workers nothing.
    await expect(api.temporal.workflow.getHandle(`deposit-${spammed[0].id}`).describe()).rejects.toThrow(/not found/i);
  });

  test("a transfer out of a deposit account to its refund recipient completes the deposit's refund", async () => {
    const { owner, address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
    // A token the registry does not list: rejected (TOKEN-1), recovered to the owner, refunded by a transfer.
    const odd = await deployContract(base, 'TestToken', ['Odd', 'ODD', 18]);
    await base.send(odd, 'TestToken', 'mint', [base.sender.address, 7n]);
    const txHash = await base.send(odd, 'TestToken', 'transfer', [address, 7n]);
    await confirm();
    await eventually('deposit-rejected', async () => webhooks(address).some((w) => w.type === 'deposit-rejected'));
    const depositId = webhooks(address)[0].data.depositId;
    expect((await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId } })).status).toBe(202);

    const refundTx = await base.send(odd, 'TestToken', 'transfer', [owner.address, 7n], address);
    await confirm();
    await eventually('deposit-refunded', async () => webhooks(address).some((w) => w.type === 'deposit-refunded'));
    expect(webhooks(address).find((w) => w.type === 'deposit-refunded').data.refund).toMatchObject({
      transactionHash: refundTx,
      amount: '7',
      recipient: owner.address.toLowerCase(),
    });
    expect((await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits[0].status).toBe('refunded');
  });
});

describe('reorgs', () => {
  /** The events recorded from a chain's blocks with these hashes. */
  const recordedFrom = async (chainId: number, hashes: Hex[]) =>
    (
      await api.db.query('SELECT id FROM indexer_events WHERE id LIKE ANY($1::text[])', [
        hashes.map((h) => `chain:${chainId}:${h}:%`),
      ])
    ).length;
  const hashesAbove = async (chain: IndexedChain, from: bigint) => {
    const head = await chain.public.getBlockNumber();
    const out: Hex[] = [];
    for (let n = from + 1n; n <= head; n++) out.push((await chain.public.getBlock({ blockNumber: n })).hash);
    return out;
  };

  test('with a confirmation depth greater than the reorg, only the winning branch reaches the service', async () => {
    const account = privateKeyToAccount(generatePrivateKey()).address;
    // A marker two blocks below the fork: at depth 3 it is read only once the head is the abandoned branch's.
    const marker = privateKeyToAccount(generatePrivateKey()).address;
    await depositOn(op, OP_USDC, marker, 1n);
    await op.test.mine({ blocks: 1 });
    const fork = await op.public.getBlockNumber();
    const snapshot = await op.test.snapshot();
    await depositOn(op, OP_USDC, account, 7_000_000n);
    await op.test.mine({ blocks: 1 });
    const abandoned = await hashesAbove(op, fork); // two blocks: less than the depth of 3
    expect(abandoned).toHaveLength(2);
    // The indexer has read up to the marker, so it saw the abandoned head: what keeps that branch out is the depth.
    await eventually('the marker', async () => (await usdcOn(10, marker))?.locked === '1');
    await op.test.revert({ id: snapshot });
    await depositOn(op, OP_USDC, account, 4_000_000n);
    await op.test.mine({ blocks: 3 });
    await eventually('the winning branch', async () => (await usdcOn(10, account))?.locked === '4000000');
    expect(await recordedFrom(10, abandoned)).toBe(0);
    expect(await recordedFrom(10, await hashesAbove(op, fork))).toBeGreaterThan(0);
  });

  test("with no confirmations, an abandoned block's balances are read again and its deposit is never reported", async () => {
    const account = privateKeyToAccount(generatePrivateKey()).address;
    const p = await newProject(api, 'reorgs');
    const { address: depositAccount } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
    await polygon.send(POLYGON_USDC, 'TestToken', 'mint', [polygon.sender.address, 20_000_000n]);
    const fork = await polygon.public.getBlockNumber();
    const snapshot = await polygon.test.snapshot();
    const abandonedTx = await polygon.send(POLYGON_USDC, 'TestToken', 'transfer', [depositAccount, 9_000_000n]);
    await depositOn(polygon, POLYGON_USDC, account, 9_000_000n);
    // The lock's balance is reported at depth 0; the transfer, one block deep, not yet (deposits wait for 2).
    await eventually('the lock at depth 0', async () => (await usdcOn(137, account))?.locked === '9000000');
    const abandoned = await hashesAbove(polygon, fork);
    expect(await recordedFrom(137, abandoned)).toBe(1);

    await polygon.test.revert({ id: snapshot });
    const winningTx = await polygon.send(POLYGON_USDC, 'TestToken', 'transfer', [depositAccount, 4_000_000n]);
    await polygon.test.mine({ blocks: 3 });
    await eventually('the corrected lock', async () => (await usdcOn(137, account))?.locked === '0');
    const deposits = async () =>
      (await call(p, 'GET', `${DP}/deposits?account=${depositAccount}`)).json.deposits as { txHash: string }[];
    await eventually('the winning deposit', async () => (await deposits()).length > 0);
    expect((await deposits()).map((d) => d.txHash)).toEqual([winningTx]);
    expect(winningTx).not.toBe(abandonedTx);
    expect((await usdcOn(137, depositAccount))?.unlocked).toBe('4000000');
  });

  // Polygon's settlement depth is 2: these reorgs go deeper, as the attack pass's did on the devnet.
  type Listed = { id: string; txHash: string; logIndex: number; stage: string; status: string; errorCode: string };
  const depositsOf = async (p: Project, account: string) =>
    (await call(p, 'GET', `${DP}/deposits?account=${account}`)).json.deposits as (Listed & { intentId: string })[];
  const webhookTypes = async (depositId: string) =>
    (await api.db.query('SELECT type FROM webhook_events WHERE deposit_id = $1 ORDER BY seq', [depositId])).map(
      (r: { type: string }) => r.type,
    );

  test('the same transaction mined again by a reorg at another log index is one deposit with one bridge', async () => {
    const p = await newProject(api, 'reorg-same-transfer');
    const { address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
    await polygon.send(POLYGON_USDC, 'TestToken', 'mint', [polygon.sender.address, 4_000_000n]);
    const snapshot = await polygon.test.snapshot();
    const tx = await polygon.send(POLYGON_USDC, 'TestToken', 'transfer', [address, 4_000_000n]);
    const raw: Hex = await polygon.public.request({
      method: 'eth_getRawTransactionByHash' as never,
      params: [tx] as never,
    });
    await polygon.test.mine({ blocks: 3 });
    await eventually('the bridge', async () => (await depositsOf(p, address))[0]?.stage === 'bridging');
    const [first] = await depositsOf(p, address);
    expect(first).toMatchObject({ txHash: tx, logIndex: 0 });

    // The winning branch mines another transfer first and then the same signed transaction: its log index moves.
    await polygon.test.revert({ id: snapshot });
    const other = privateKeyToAccount(generatePrivateKey()).address;
    await polygon.test.impersonateAccount({ address: other });
    await polygon.test.setBalance({ address: other, value: 10n ** 18n });
    await polygon.test.setAutomine(false);
    try {
      await polygon.wallet.writeContract({
        chain: null,
        account: other,
        address: POLYGON_USDC,
        abi: parseAbi(['function mint(address to, uint256 amount)']),
        functionName: 'mint',
        args: [other, 1n],
        gas: 100_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 10n,
      });
      await polygon.public.request({ method: 'eth_sendRawTransaction', params: [raw] });
      await polygon.test.mine({ blocks: 1 });
    } finally {
      await polygon.test.setAutomine(true);
    }
    expect((await polygon.public.getTransactionReceipt({ hash: tx })).logs[0].logIndex).toBe(1);
    await polygon.test.mine({ blocks: 6 });
    await eventually('the moved log', async () => (await depositsOf(p, address))[0]?.logIndex === 1);
    const listed = await depositsOf(p, address);
    expect(listed).toEqual([expect.objectContaining({ id: first.id, txHash: tx, stage: 'bridging' })]);
    const intents = await api.db.query('SELECT id FROM intents WHERE lower(account) = $1', [address.toLowerCase()]);
    expect(intents).toHaveLength(1);
    expect(await webhookTypes(first.id)).toEqual(['deposit-received', 'bridge-started']);
  });

  test('a reorg that drops a reported deposit voids it: its bridge is cancelled and the next real deposit bridges at once', async () => {
    const p = await newProject(api, 'reorg-void');
    const { address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
    await polygon.send(POLYGON_USDC, 'TestToken', 'mint', [polygon.sender.address, 3_000_000n]);
    const snapshot = await polygon.test.snapshot();
    await polygon.send(POLYGON_USDC, 'TestToken', 'transfer', [address, 3_000_000n]);
    await polygon.test.mine({ blocks: 3 });
    await eventually('the bridge', async () => (await depositsOf(p, address))[0]?.stage === 'bridging');
    const [dropped] = await depositsOf(p, address);

    await polygon.test.revert({ id: snapshot });
    await polygon.test.mine({ blocks: 6 });
    await eventually('the void', async () => (await depositsOf(p, address))[0]?.stage === 'voided');
    expect((await depositsOf(p, address))[0]).toMatchObject({ status: 'failed', errorCode: 'REORG-1' });
    expect(await webhookTypes(dropped.id)).toEqual(['deposit-received', 'bridge-started', 'deposit-voided']);
    // Its intent is cancelled before anyone is paid for it: failed, holding nothing, no claim authorized.
    expect((await call(p, 'GET', `/intent-operation/${dropped.intentId}`)).json.status).toBe('FAILED');
    expect((await call(p, 'GET', `/intent-operation/${dropped.intentId}/claim-authorization`)).status).toBe(409);

    // A real deposit of the same amount: nothing holds the account's funds, so it bridges at once.
    const real = await polygon.send(POLYGON_USDC, 'TestToken', 'transfer', [address, 3_000_000n]);
    await polygon.test.mine({ blocks: 3 });
    await eventually('the real deposit bridging', async () =>
      (await depositsOf(p, address)).some((d) => d.txHash === real && d.stage === 'bridging'),
    );
  });
});
