import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { waitFor } from '../../src/dev/processes';
import { Api, call, ingest, startApi, startWorker } from '../support/harness';
import { ARB_USDC, BASE_USDC, blockAt, claimEvent, fillEvent, TX, walletSnapshot } from '../support/fixtures';
import { newProject, subscribe, type Project } from '../support/projects';
import { Receiver } from '../support/receiver';
import {
  accountProof,
  balanceAtExpiry,
  DP,
  depositEvents,
  fillAndClaim,
  intentFailure,
  newOwner,
  projectSigner,
  registerManaged,
} from '../support/deposits';
import { withdrawTypedData } from '../../src/deposits/session-digest';
import { forgetAttempt, intentIsFinal } from '../../src/deposits/store';

let api: Api;
const receivers: Receiver[] = [];
let tx = 1000;
const nextTx = () => TX(tx++);

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await api.close();
});

/** A project with a webhook receiver that verifies every signature. */
async function subscribed(on: Api = api): Promise<{ p: Project; r: Receiver }> {
  const p = await newProject(on, 'deposits');
  const r = await new Receiver([]).start();
  receivers.push(r);
  await subscribe(p, r);
  return { p, r };
}

/** The deposit's webhooks as the receiver accepted them (each webhook-id once), in the order they were sent. */
const hooks = (r: Receiver, depositId: string) =>
  [...r.accepted.values()]
    .filter((d) => d.json.data.depositId === depositId)
    .sort((a, b) => a.json.timestamp.localeCompare(b.json.timestamp) || 0);
const types = (r: Receiver, depositId: string) => hooks(r, depositId).map((d) => d.json.type);

async function until(r: Receiver, depositId: string, type: string, count = 1, ms = 30_000) {
  await waitFor(
    `${type} ×${count} of deposit ${depositId}`,
    async () => types(r, depositId).filter((t) => t === type).length >= count,
    ms,
  );
  return hooks(r, depositId).filter((d) => d.json.type === type)[count - 1].json.data;
}

async function byTx(p: Project, txHash: string) {
  const res = await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`);
  expect(res.status).toBe(200);
  return res.json.deposits;
}

/** A managed account's deposit below the minimum (rejected BALANCE-4, its funds in the account's balance). */
async function belowMinimum(block?: number) {
  const { p, r } = await subscribed();
  const { owner, address } = await registerManaged(p, baseToArb);
  const small = nextTx();
  await ingest(
    api,
    depositEvents({ amount: '999999', balance: '999999', account: address, sender: sender(), txHash: small, block }),
  );
  return { p, r, owner, address, small, id: await depositIdOf(p, small) };
}

/** What an indexer reports when a reorg dropped a deposit's transaction: the transfer's identity, no place. */
const voidOf = ({ id, logIndex: _i, blockNumber: _b, fillNonce: _f, ...identity }: Record<string, unknown>) => ({
  ...identity,
  id: `${id}-void`,
  type: 'deposit-void',
});

async function depositIdOf(p: Project, txHash: string): Promise<string> {
  let id = '';
  await waitFor(`deposit of ${txHash}`, async () => !!(id = (await byTx(p, txHash))[0]?.id), 10_000);
  return id;
}

/**
 * Until the deposit's workflow took in the RELEASED report of its intent (at `expires`) and waits again: an activity
 * ran after the report, a workflow task completed after it, and nothing is scheduled or pending since.
 */
async function tookInReleased(depositId: string, on: Api = api): Promise<void> {
  const handle = on.temporal.workflow.getHandle(`deposit-${depositId}`);
  await waitFor(
    `deposit ${depositId} took in RELEASED and waits again`,
    async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      const signal = events.findIndex((e) => {
        const input = e.workflowExecutionSignaledEventAttributes?.input?.payloads?.[0]?.data;
        return !!input && JSON.parse(Buffer.from(input).toString()).status === 'RELEASED';
      });
      if (signal < 0) return false;
      const after = events.slice(signal + 1);
      const completed = after.findLastIndex((e) => !!e.activityTaskCompletedEventAttributes);
      const lastTask = after.findLastIndex((e) => !!e.workflowTaskCompletedEventAttributes);
      const lastScheduled = after.findLastIndex((e) => !!e.activityTaskScheduledEventAttributes);
      return (
        completed >= 0 &&
        lastTask > completed &&
        lastTask > lastScheduled &&
        !(await handle.describe()).raw.pendingActivities?.length
      );
    },
    40_000,
  );
}

const sender = () => privateKeyToAccount(generatePrivateKey()).address;
const baseToArb = { chain: 'eip155:42161', token: ARB_USDC };

describe('a deposit end to end', () => {
  test('managed account → deposit on Base → received, bridge-started (a visible intent) → fill and claim → bridge-complete', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    const from = sender();
    const ingested = await ingest(
      api,
      depositEvents({ amount: '5000000', balance: '5000000', account: address, sender: from, txHash }),
    );
    expect(ingested.status).toBe(200);
    const id = await depositIdOf(p, txHash);

    const received = await until(r, id, 'deposit-received');
    expect(received).toEqual({
      depositId: id,
      account: address.toLowerCase(),
      chain: 'eip155:8453',
      token: BASE_USDC.toLowerCase(),
      amount: '5000000',
      transactionHash: txHash,
      sender: from.toLowerCase(),
    });
    const [atReceipt] = await byTx(p, txHash);
    expect(atReceipt).toMatchObject({
      id,
      status: 'processing',
      errorCode: null,
      completedAt: null,
      createdAt: expect.any(String),
    });
    expect(['received', 'bridging']).toContain(atReceipt.stage);
    const started = await until(r, id, 'bridge-started');
    expect(started).toMatchObject({
      depositId: id,
      attempt: 1,
      settlementLayer: expect.any(String),
      source: { chain: 'eip155:8453', asset: BASE_USDC.toLowerCase() },
      destination: { chain: 'eip155:42161', asset: ARB_USDC.toLowerCase() },
    });
    // The intent spends at most the deposit (fees included) and delivers it minus the fees.
    expect(BigInt(started.source.amount)).toBeLessThanOrEqual(5_000_000n);
    expect(BigInt(started.source.amount)).toBeGreaterThan(4_990_000n);
    expect(BigInt(started.destination.amount)).toBeLessThan(BigInt(started.source.amount));
    const intent = await call(p, 'GET', `/intent-operation/${started.intentId}`);
    expect(intent.status).toBe(200);
    expect(intent.json).toMatchObject({ status: 'PENDING', destinationChainId: 42161, userAddress: address });
    const [bridging] = await byTx(p, txHash);
    expect(bridging).toMatchObject({
      id,
      chain: 'eip155:8453',
      txHash,
      token: BASE_USDC,
      amount: '5000000',
      sender: from,
      account: address,
      targetChain: 'eip155:42161',
      targetToken: ARB_USDC,
      status: 'processing',
      stage: 'bridging',
      intentId: started.intentId,
      sourceAmount: started.source.amount,
      destinationAmount: started.destination.amount,
      sourceTxHash: null,
      destinationTxHash: null,
      errorCode: null,
      completedAt: null,
    });

    // An overlapping activity retry that finds the quote refused cannot forget an intent the core accepted.
    await forgetAttempt(api.db, 'bridge', id, started.intentId, 1);
    expect((await byTx(p, txHash))[0]).toMatchObject({ intentId: started.intentId, attempts: 1 });

    const fillTx = nextTx();
    const claimTx = nextTx();
    expect(
      (
        await ingest(
          api,
          fillAndClaim(started.intentId, { chainId: 42161, txHash: fillTx }, { chainId: 8453, txHash: claimTx }),
        )
      ).status,
    ).toBe(200);
    const complete = await until(r, id, 'bridge-complete');
    expect(complete).toMatchObject({
      depositId: id,
      intentId: started.intentId,
      source: { transactionHash: claimTx, chain: 'eip155:8453', amount: started.source.amount },
      destination: { transactionHash: fillTx, chain: 'eip155:42161', amount: started.destination.amount },
      deposit: { transactionHash: txHash, chain: 'eip155:8453', amount: '5000000', sender: from.toLowerCase() },
    });
    const [done] = await byTx(p, txHash);
    expect(done).toMatchObject({
      status: 'completed',
      stage: 'completed',
      sourceTxHash: claimTx,
      destinationTxHash: fillTx,
      completedAt: expect.any(String),
    });
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
    for (const d of hooks(r, id)) expect(d.verifiedWith).toHaveLength(1);
    const events = await call(p, 'GET', `${DP}/webhooks/events?depositId=${id}`);
    expect(events.json.events.map((e: { type: string }) => e.type)).toEqual([
      'bridge-complete',
      'bridge-started',
      'deposit-received',
    ]);
  });
});

describe('paths', () => {
  test('an unsupported token is rejected with TOKEN-1; recovery sends it to the owner; the refund transfer makes it refunded', async () => {
    const { p, r } = await subscribed();
    const { owner, address } = await registerManaged(p, baseToArb);
    const odd = '0x1111111111111111111111111111111111111111';
    const txHash = nextTx();
    const from = sender();
    expect(
      (
        await ingest(
          api,
          depositEvents({ chainId: 8453, token: odd, amount: '7', account: address, sender: from, txHash }),
        )
      ).status,
    ).toBe(200);
    const id = await depositIdOf(p, txHash);
    const rejected = await until(r, id, 'deposit-rejected');
    expect(rejected).toEqual({
      depositId: id,
      account: address.toLowerCase(),
      errorCode: 'TOKEN-1',
      message: 'Token not supported on this chain',
      deposit: {
        transactionHash: txHash,
        chain: 'eip155:8453',
        token: odd,
        asset: odd,
        amount: '7',
        sender: from.toLowerCase(),
      },
    });
    expect((await byTx(p, txHash))[0]).toMatchObject({
      status: 'failed',
      stage: 'rejected',
      errorCode: 'TOKEN-1',
      refund: null,
      completedAt: expect.any(String),
    });

    const recovery = await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } });
    expect(recovery.status).toBe(202);
    expect(recovery.json).toMatchObject({
      id,
      status: 'failed',
      stage: 'refunding',
      refund: { recipient: owner.address, intentId: null, transactionHash: null },
    });
    expect((await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } })).status).toBe(202); // idempotent
    const other = await newProject(api, 'other');
    expect((await call(other, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } })).status).toBe(404);

    const refundTx = nextTx();
    const refund = {
      id: `refund-${refundTx}`,
      type: 'deposit-refund',
      chainId: 8453,
      transactionHash: refundTx,
      account: address,
      token: odd,
      amount: '7',
      recipient: owner.address,
    };
    // A transfer of less than the deposit refunds nothing.
    expect(
      (await ingest(api, [{ ...refund, id: `${refund.id}-short`, transactionHash: nextTx(), amount: '6' }])).status,
    ).toBe(200);
    expect((await byTx(p, txHash))[0]).toMatchObject({ stage: 'refunding', refund: { transactionHash: null } });
    expect((await ingest(api, [refund])).status).toBe(200);
    const refunded = await until(r, id, 'deposit-refunded');
    expect(refunded).toMatchObject({
      depositId: id,
      refund: {
        transactionHash: refundTx,
        chain: 'eip155:8453',
        asset: odd,
        amount: '7',
        recipient: owner.address.toLowerCase(),
      },
    });
    expect((await byTx(p, txHash))[0]).toMatchObject({
      status: 'refunded',
      stage: 'refunded',
      refund: { recipient: owner.address, transactionHash: refundTx },
    });
    const again = await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } });
    expect(again.status).toBe(400);
    expect(again.json).toEqual({
      error: `Deposit ${id} is not recoverable (refunded)`,
      code: 'RECOVERY-1',
      details: [{ message: 'is not a rejected deposit', path: ['body', 'depositId'], code: 'RECOVERY-1' }],
      traceId: expect.any(String),
    });
    // An unsupported token's deposit is recorded and rejected in one transaction: both webhooks carry its timestamp.
    const sent = types(r, id);
    expect(sent.slice(0, 2).sort()).toEqual(['deposit-received', 'deposit-rejected']);
    expect(sent.slice(2)).toEqual(['deposit-refunded']);
  });

  test('below the minimum: BALANCE-4 with the limit, then recovered; a user-owned account without a session on the chain: SESSION-1', async () => {
    const { p, r, owner, small, id } = await belowMinimum();
    expect(await until(r, id, 'deposit-rejected')).toMatchObject({
      errorCode: 'BALANCE-4',
      message: 'Deposit is below the minimum of 1 USD',
      limits: { minAmountUsd: '1' },
    });
    // Recovered to the owner by a same-chain intent the session signer signs; its fill is the refund.
    expect((await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } })).status).toBe(202);
    let refundIntent = '';
    await waitFor(
      'the refund intent',
      async () => !!(refundIntent = (await byTx(p, small))[0].refund.intentId),
      20_000,
    );
    const refundTx = nextTx();
    await ingest(
      api,
      fillAndClaim(refundIntent, { chainId: 8453, txHash: refundTx }, { chainId: 8453, txHash: nextTx() }),
    );
    expect(await until(r, id, 'deposit-refunded')).toMatchObject({
      refund: { transactionHash: refundTx, recipient: owner.address.toLowerCase() },
    });

    // Proven by its own signature, so the missing session is what stops it.
    const { account: ownedAccount, address: owned } = newOwner();
    const proof = await accountProof(ownedAccount, 42161, await projectSigner(p));
    const setup = await call(p, 'POST', `${DP}/setup`, {
      body: { account: { address: owned, owner: sender(), target: baseToArb, ...proof } },
    });
    expect(setup.status).toBe(201);
    const noSession = nextTx();
    await ingest(
      api,
      depositEvents({ amount: '5000000', balance: '5000000', account: owned, sender: sender(), txHash: noSession }),
    );
    const id2 = await depositIdOf(p, noSession);
    expect(await until(r, id2, 'deposit-rejected')).toMatchObject({ errorCode: 'SESSION-1' });
  });

  test("a project requiring compliance: COMPLIANCE-1 until the account's customer is approved", async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(
      p,
      { chain: 'eip155:8453', token: BASE_USDC },
      { requireCompliance: true },
    );
    const first = nextTx();
    await ingest(api, depositEvents({ amount: '2000000', account: address, sender: sender(), txHash: first }));
    expect(await until(r, await depositIdOf(p, first), 'deposit-rejected')).toMatchObject({
      errorCode: 'COMPLIANCE-1',
    });

    expect(
      (await call(p, 'POST', `${DP}/compliance/sessions`, { body: { customerId: 'cus-dep', account: address } }))
        .status,
    ).toBe(201);
    await api.db.query(
      "INSERT INTO verifications (project_id, customer_id, currency, provider, applicant_id, status) VALUES ($1, 'cus-dep', 'EUR', 'sandbox', $2, 'approved')",
      [p.projectId, `app-${address}`],
    );
    const second = nextTx();
    await ingest(api, depositEvents({ amount: '2000000', account: address, sender: sender(), txHash: second }));
    await until(r, await depositIdOf(p, second), 'bridge-complete');
  });

  test('the same transfer reported twice (and under a new event id) is one deposit; unregistered accounts are ignored', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, { chain: 'eip155:8453', token: BASE_USDC });
    const txHash = nextTx();
    const events = depositEvents({ amount: '3000000', account: address, sender: sender(), txHash, logIndex: 4 });
    const first = await ingest(api, events);
    expect(first.json).toEqual({ received: 1, applied: 1, duplicates: 0 });
    expect((await ingest(api, events)).json).toEqual({ received: 1, applied: 0, duplicates: 1 });
    expect((await ingest(api, [{ ...events[0], id: `${events[0].id}-again` }])).json).toEqual({
      received: 1,
      applied: 1,
      duplicates: 0,
    });
    // Its transaction mined again by a reorg, the log elsewhere in the block: the same transfer, the same deposit.
    await ingest(api, [{ ...events[0], id: `${events[0].id}-moved`, logIndex: 9 }]);
    const other = depositEvents({ amount: '3000000', account: sender(), sender: sender(), txHash: nextTx() });
    expect((await ingest(api, other)).status).toBe(200);
    const id = await depositIdOf(p, txHash);
    await until(r, id, 'bridge-complete');
    expect(await byTx(p, txHash)).toEqual([expect.objectContaining({ logIndex: 9 })]);
    expect(await byTx(p, other[0].transactionHash as string)).toHaveLength(0);
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-complete']);
  });

  test('a deposit-void report voids a deposit whose funds have not moved: its bridge never starts; a moved one stands', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    // No balance yet: the bridge waits for the funds.
    const [deposit] = depositEvents({ amount: '3000000', account: address, sender: sender(), txHash });
    await ingest(api, [deposit]);
    const id = await depositIdOf(p, txHash);
    const voided = await ingest(api, [voidOf(deposit)]);
    expect(voided.json).toEqual({ received: 1, applied: 1, duplicates: 0 });
    await until(r, id, 'deposit-voided');
    expect(hooks(r, id).find((d) => d.json.type === 'deposit-voided')!.json.data).toMatchObject({
      errorCode: 'REORG-1',
      intentId: null,
    });
    // The funds show now, yet nothing starts: the workflow ends voided at its next try.
    await ingest(api, [walletSnapshot(address, '3000000', { blockNumber: '200' })]);
    expect(await api.temporal.workflow.getHandle(`deposit-${id}`).result()).toBe('voided');
    expect(await byTx(p, txHash)).toEqual([
      expect.objectContaining({ stage: 'voided', status: 'failed', attempts: 0 }),
    ]);
    expect(types(r, id)).toEqual(['deposit-received', 'deposit-voided']);

    // A deposit whose bridge was filled: its funds moved, so a void changes nothing.
    const movedTx = nextTx();
    const moved = depositEvents({
      amount: '3000000',
      balance: '3000000',
      account: address,
      sender: sender(),
      txHash: movedTx,
      block: 300,
    });
    await ingest(api, moved);
    const movedId = await depositIdOf(p, movedTx);
    const started = await until(r, movedId, 'bridge-started');
    await ingest(api, [fillEvent(started.intentId, nextTx(), { chainId: 42161 })]);
    await ingest(api, [voidOf(moved[1])]);
    await until(r, movedId, 'bridge-complete');
    expect(types(r, movedId)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
  });

  test("an unproven registration's deposits are recorded and move nothing (ACCOUNT-2, no recovery) until the account signs it", async () => {
    const { p, r } = await subscribed();
    const { owner, address, account, record } = await registerManaged(p, baseToArb, {}, true);
    const txHash = nextTx();
    await ingest(
      api,
      depositEvents({ amount: '3000000', balance: '3000000', account: address, sender: sender(), txHash }),
    );
    const id = await depositIdOf(p, txHash);
    expect(await until(r, id, 'deposit-rejected')).toMatchObject({ errorCode: 'ACCOUNT-2' });
    const recover = () => call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } });
    expect((await recover()).json).toMatchObject({ code: 'RECOVERY-1' });
    const held = await api.db.query('SELECT 1 FROM reservations WHERE account = $1', [address.toLowerCase()]);
    expect(held).toHaveLength(0);

    // The account signs the same registration: it is the project's now, and its deposit may go back to its owner.
    const proof = await accountProof(account, 42161, record.sessionSigner);
    const signed = await call(p, 'POST', `${DP}/register-managed`, {
      body: {
        account: { address, owner: owner.address, sessionSigner: record.sessionSigner, target: baseToArb, ...proof },
      },
    });
    expect(signed.status).toBe(200);
    expect((await recover()).status).toBe(202);
  });

  test('same chain and token: completed without a bridge', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, { chain: 'eip155:8453', token: BASE_USDC });
    const txHash = nextTx();
    await ingest(api, depositEvents({ amount: '3000000', account: address, sender: sender(), txHash }));
    const id = await depositIdOf(p, txHash);
    const complete = await until(r, id, 'bridge-complete');
    const leg = { transactionHash: txHash, chain: 'eip155:8453', amount: '3000000', asset: BASE_USDC.toLowerCase() };
    expect(complete).toMatchObject({ source: leg, destination: leg, settlementLayer: null });
    expect((await byTx(p, txHash))[0]).toMatchObject({
      status: 'completed',
      intentId: null,
      attempts: 0,
      sourceTxHash: txHash,
      destinationTxHash: txHash,
    });
  });

  test('delays: funds not in the balance yet → deposit-delayed; a slow fill → bridge-delayed; both keep going to bridge-complete', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    const from = sender();
    await ingest(api, depositEvents({ amount: '4000000', account: address, sender: from, txHash })); // no balance yet
    const id = await depositIdOf(p, txHash);
    expect(await until(r, id, 'deposit-delayed')).toMatchObject({
      reason: 'Waiting for the deposited funds to show in the account balance',
      deposit: { transactionHash: txHash },
    });
    expect((await byTx(p, txHash))[0]).toMatchObject({ status: 'processing', stage: 'received' });
    await ingest(api, [
      {
        id: `balance-${txHash}`,
        type: 'balance',
        chainId: 8453,
        account: address,
        token: BASE_USDC,
        unlocked: '4000000',
        blockNumber: '101',
      },
    ]);
    const started = await until(r, id, 'bridge-started');
    expect(await until(r, id, 'bridge-delayed')).toMatchObject({
      intentId: started.intentId,
      attempt: 1,
      reason: 'The bridge is taking longer than expected',
    });
    await ingest(
      api,
      fillAndClaim(started.intentId, { chainId: 42161, txHash: nextTx() }, { chainId: 8453, txHash: nextTx() }),
    );
    await until(r, id, 'bridge-complete');
    expect(types(r, id)).toEqual([
      'deposit-received',
      'deposit-delayed',
      'bridge-started',
      'bridge-delayed',
      'bridge-complete',
    ]);
  });

  test('bridge failures: failed twice then filled → complete; failed on every attempt → refunded to the sender', async () => {
    const { p, r } = await subscribed();
    const run = async (failures: number) => {
      const { address } = await registerManaged(p, baseToArb);
      const txHash = nextTx();
      const from = sender();
      await ingest(
        api,
        depositEvents({ amount: '6000000', balance: '6000000', account: address, sender: from, txHash }),
      );
      const id = await depositIdOf(p, txHash);
      const intents: string[] = [];
      for (let attempt = 1; attempt <= Math.min(failures + 1, 3); attempt++) {
        const started = await until(r, id, 'bridge-started', attempt, 45_000);
        expect(started.attempt).toBe(attempt);
        intents.push(started.intentId);
        if (attempt <= failures) {
          await ingest(api, [intentFailure(started.intentId, 42161)]);
          // A snapshot of a block at its `expires` showing no claim frees its funds for the next attempt (or the refund),
          // and only then is the attempt decided.
          const expires = Number(
            (await call(p, 'GET', `/intent-operation/${started.intentId}?full=true`)).json.intentOp.expires,
          );
          await ingest(api, [
            balanceAtExpiry({ chainId: 8453, token: BASE_USDC, account: address, balance: '6000000', expires }),
          ]);
          const failed = await until(r, id, 'bridge-failed', attempt, 30_000);
          expect(failed).toMatchObject({
            intentId: started.intentId,
            errorCode: 'BRIDGE-4',
            retryable: attempt < 3,
            attempt,
          });
        } else {
          await ingest(
            api,
            fillAndClaim(started.intentId, { chainId: 42161, txHash: nextTx() }, { chainId: 8453, txHash: nextTx() }),
          );
        }
      }
      expect(new Set(intents).size).toBe(intents.length); // a fresh quote each time
      return { id, address, from, txHash };
    };
    const [twice, always] = await Promise.all([run(2), run(3)]);
    await until(r, twice.id, 'bridge-complete');
    expect(types(r, twice.id)).toEqual([
      'deposit-received',
      'bridge-started',
      'bridge-failed',
      'bridge-started',
      'bridge-failed',
      'bridge-started',
      'bridge-complete',
    ]);
    expect((await byTx(p, twice.txHash))[0]).toMatchObject({ status: 'completed', attempts: 3 });

    expect((await byTx(p, always.txHash))[0]).toMatchObject({
      status: 'failed',
      stage: 'refunding',
      errorCode: 'BRIDGE-4',
      refund: { recipient: always.from, transactionHash: null },
    });
    // The refund is a same-chain intent back to the sender, once the last failed intent no longer holds the funds.
    let refundIntent = '';
    // Its id is recorded before its submit: wait until the intent core holds it.
    await waitFor(
      'the refund intent',
      async () =>
        !!(refundIntent = (await byTx(p, always.txHash))[0].refund.intentId) &&
        (await call(p, 'GET', `/intent-operation/${refundIntent}`)).status === 200,
      40_000,
    );
    const refund = await call(p, 'GET', `/intent-operation/${refundIntent}?full=true`);
    expect(refund.json).toMatchObject({ status: 'PENDING', destinationChainId: 8453 });
    expect(refund.json.intentOp.elements[0].mandate.recipient).toBe(always.from);
    const refundTx = nextTx();
    await ingest(
      api,
      fillAndClaim(refundIntent, { chainId: 8453, txHash: refundTx }, { chainId: 8453, txHash: nextTx() }),
    );
    expect(await until(r, always.id, 'deposit-refunded')).toMatchObject({
      refund: { transactionHash: refundTx, chain: 'eip155:8453', recipient: always.from.toLowerCase() },
    });
    expect((await byTx(p, always.txHash))[0]).toMatchObject({
      status: 'refunded',
      refund: { recipient: always.from, intentId: refundIntent, transactionHash: refundTx },
    });
    expect(types(r, always.id)).toEqual([
      'deposit-received',
      'bridge-started',
      'bridge-failed',
      'bridge-started',
      'bridge-failed',
      'bridge-started',
      'bridge-failed',
      'deposit-refunded',
    ]);
  }, 120_000);
});

describe("a bridge's arrival into the account", () => {
  test("its fill's transfer into the account, named by fillNonce before or after the fill's report, is no second deposit; another intent's fill paying the account, or a forged fillNonce, still is", async () => {
    const { p, r } = await subscribed();
    // The default target recipient: the account itself, which the bridge then pays on Arbitrum.
    const { address: a } = await registerManaged(p, baseToArb);
    const { address: b } = await registerManaged(p, baseToArb);
    const bridged = async (account: string) => {
      const txHash = nextTx();
      const deposit = { chainId: 8453, token: BASE_USDC, amount: '5000000', balance: '5000000', account, txHash };
      expect((await ingest(api, depositEvents({ ...deposit, sender: sender() }))).status).toBe(200);
      const id = await depositIdOf(p, txHash);
      return { id, txHash, started: await until(r, id, 'bridge-started') };
    };
    const [first, second] = [await bridged(a), await bridged(b)];
    const relayer = sender();
    /** What the chain indexer reports for a fill's transfer into `account`: a deposit naming that fill. */
    const arrival = (account: string, fillNonce: string, txHash = nextTx(), amount = '4000000') =>
      depositEvents({ chainId: 42161, token: ARB_USDC, amount, account, sender: relayer, txHash, fillNonce });

    // A's bridge arrives, reported before its fill: not a deposit, but the bridge's destination transaction.
    const fillA = nextTx();
    const arrivedA = await ingest(api, arrival(a, first.started.intentId, fillA, first.started.destination.amount));
    expect(arrivedA.json).toEqual({ received: 1, applied: 1, duplicates: 0 });
    expect(await byTx(p, fillA)).toEqual([]);
    expect((await byTx(p, first.txHash))[0]).toMatchObject({ stage: 'bridging', destinationTxHash: fillA });
    await ingest(
      api,
      fillAndClaim(first.started.intentId, { chainId: 42161, txHash: fillA }, { chainId: 8453, txHash: nextTx() }),
    );
    expect((await until(r, first.id, 'bridge-complete')).destination.transactionHash).toBe(fillA);

    // B's bridge arrives, reported after its fill, in the batch of its claim: not a deposit either.
    const fillB = nextTx();
    const [fill, claim] = fillAndClaim(
      second.started.intentId,
      { chainId: 42161, txHash: fillB },
      { chainId: 8453, txHash: nextTx() },
    );
    await ingest(api, [fill, ...arrival(b, second.started.intentId, fillB), claim]);
    expect(await byTx(p, fillB)).toEqual([]);
    expect((await until(r, second.id, 'bridge-complete')).destination.transactionHash).toBe(fillB);

    // Into A: a fill of an intent that is none of ours, and a fillNonce naming B's bridge (which pays B, not A).
    const foreign = nextTx();
    const forged = nextTx();
    await ingest(api, [...arrival(a, '123456789', foreign), ...arrival(a, second.started.intentId, forged)]);
    for (const txHash of [foreign, forged]) {
      const id = await depositIdOf(p, txHash);
      // Already on the target chain in the target token: completed without a bridge.
      await until(r, id, 'bridge-complete');
      expect(types(r, id)).toEqual(['deposit-received', 'bridge-complete']);
    }
    // Two deposits bridged, two deposited through other fills: four deposits, each with its own received webhook.
    const listed = (await call(p, 'GET', `${DP}/deposits?account=${a}`)).json.deposits;
    expect(listed.map((d: { txHash: string }) => d.txHash).sort()).toEqual([first.txHash, foreign, forged].sort());
    expect((await call(p, 'GET', `${DP}/deposits?account=${b}`)).json.deposits).toHaveLength(1);
    const received = [...r.accepted.values()].filter((d) => d.json.type === 'deposit-received');
    expect(received.map((d) => d.json.data.transactionHash).sort()).toEqual(
      [first.txHash, second.txHash, foreign, forged].sort(),
    );
    expect(types(r, first.id)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
    expect(types(r, second.id)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
  });
});

describe('sizing', () => {
  test('two deposits into one account at once: each intent spends at most its own deposit, both complete from one batch of their fills and claims; a token the target is not: BRIDGE-6', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const [a, b] = [nextTx(), nextTx()];
    await ingest(api, [
      ...depositEvents({ amount: '5000000', balance: '8000000', account: address, sender: sender(), txHash: a }),
      ...depositEvents({ amount: '3000000', account: address, sender: sender(), txHash: b, logIndex: 1 }),
    ]);
    const [ia, ib] = [await depositIdOf(p, a), await depositIdOf(p, b)];
    const [sa, sb] = [await until(r, ia, 'bridge-started'), await until(r, ib, 'bridge-started')];
    expect(BigInt(sa.source.amount)).toBeLessThanOrEqual(5_000_000n);
    expect(BigInt(sb.source.amount)).toBeLessThanOrEqual(3_000_000n);
    expect(BigInt(sb.source.amount)).toBeGreaterThan(2_990_000n);
    // Both intents filled and claimed in one batch: each deposit is told of its own intent.
    const settled = [sa, sb].flatMap((s) =>
      fillAndClaim(s.intentId, { chainId: 42161, txHash: nextTx() }, { chainId: 8453, txHash: nextTx() }),
    );
    expect((await ingest(api, settled)).status).toBe(200);
    expect(await until(r, ia, 'bridge-complete')).toMatchObject({ intentId: sa.intentId });
    expect(await until(r, ib, 'bridge-complete')).toMatchObject({ intentId: sb.intentId });

    const WETH_BASE = '0x4200000000000000000000000000000000000006';
    const c = nextTx();
    await ingest(
      api,
      depositEvents({
        chainId: 8453,
        token: WETH_BASE,
        amount: '1000000000000000000',
        account: address,
        sender: sender(),
        txHash: c,
      }),
    );
    expect(await until(r, await depositIdOf(p, c), 'deposit-rejected')).toMatchObject({
      errorCode: 'BRIDGE-6',
      message: 'No route from WETH to USDC: deposits are moved, not swapped',
    });
  });
});

describe('a failed attempt is final before the next one spends', () => {
  test("two deposits into one account: the first one's retry waits for its failed intent's release and never spends the second deposit", async () => {
    // The second deposit must bridge and complete before the first intent's `expires`: a worker of its own gives
    // that round trip 25 s (the run's bridge timeout gives it 11, which a loaded machine can outlast).
    const own = await startApi({ ownDatabase: true, settings: { DEPOSIT_BRIDGE_TIMEOUT_SECONDS: '20' } });
    await startWorker(own.env);
    try {
      const { p, r } = await subscribed(own);
      const { address } = await registerManaged(p, baseToArb);
      const [a, b] = [nextTx(), nextTx()];
      await ingest(
        own,
        depositEvents({ amount: '5000000', balance: '5000000', account: address, sender: sender(), txHash: a }),
      );
      const ia = await depositIdOf(p, a);
      const first = await until(r, ia, 'bridge-started');
      const expires = Number(
        (await call(p, 'GET', `/intent-operation/${first.intentId}?full=true`)).json.intentOp.expires,
      );
      await ingest(own, [intentFailure(first.intentId, 42161)]);
      await waitFor(
        'the first intent FAILED',
        async () => (await call(p, 'GET', `/intent-operation/${first.intentId}`)).json.status === 'FAILED',
        10_000,
      );

      // The second deposit lands while the failed intent may still be claimed (its funds stay reserved until `expires`).
      await ingest(
        own,
        depositEvents({
          amount: '5000000',
          balance: '10000000',
          account: address,
          sender: sender(),
          txHash: b,
          block: 101,
        }),
      );
      const ib = await depositIdOf(p, b);
      const second = await until(r, ib, 'bridge-started');
      expect(BigInt(second.source.amount)).toBeLessThanOrEqual(5_000_000n);
      expect(Date.now() / 1000).toBeLessThan(expires);
      expect(types(r, ia)).toEqual(['deposit-received', 'bridge-started']); // no failure reported nor retry started before the release
      expect(await intentIsFinal(own.db, first.intentId)).toBe(false); // FAILED, its funds still reserved: the database agrees
      await ingest(
        own,
        fillAndClaim(second.intentId, { chainId: 42161, txHash: nextTx() }, { chainId: 8453, txHash: nextTx() }),
      );
      await until(r, ib, 'bridge-complete');

      // Past `expires`, the failed intent's funds are held until a snapshot at or after it (here also after the second
      // intent's claim, whose funds it shows gone): the deposit takes in RELEASED and decides nothing yet.
      await tookInReleased(ia, own);
      expect(types(r, ia)).toEqual(['deposit-received', 'bridge-started']);
      expect(await intentIsFinal(own.db, first.intentId)).toBe(false);
      await ingest(own, [
        balanceAtExpiry({
          chainId: 8453,
          token: BASE_USDC,
          account: address,
          balance: String(10_000_000n - BigInt(second.source.amount)),
          expires,
        }),
      ]);
      expect([await intentIsFinal(own.db, first.intentId), await intentIsFinal(own.db, second.intentId)]).toEqual([
        true,
        true,
      ]);
      const failed = await until(r, ia, 'bridge-failed', 1, 30_000);
      expect(failed).toMatchObject({ intentId: first.intentId, errorCode: 'BRIDGE-4', retryable: true, attempt: 1 });
      const retry = await until(r, ia, 'bridge-started', 2, 30_000);
      expect(Date.now() / 1000).toBeGreaterThanOrEqual(expires);
      expect(retry.attempt).toBe(2);
      // Each deposit's intent spends at most its own deposit, together at most the balance: the retry bridges the first deposit's funds.
      expect(BigInt(retry.source.amount)).toBeLessThanOrEqual(5_000_000n);
      expect(BigInt(retry.source.amount) + BigInt(second.source.amount)).toBeLessThanOrEqual(10_000_000n);
      expect(types(r, ia)).toEqual(['deposit-received', 'bridge-started', 'bridge-failed', 'bridge-started']);

      await ingest(
        own,
        fillAndClaim(retry.intentId, { chainId: 42161, txHash: nextTx() }, { chainId: 8453, txHash: nextTx() }),
      );
      await until(r, ia, 'bridge-complete');
      expect((await byTx(p, a))[0]).toMatchObject({ status: 'completed', attempts: 2, intentId: retry.intentId });
      expect((await byTx(p, b))[0]).toMatchObject({ status: 'completed', attempts: 1, intentId: second.intentId });
    } finally {
      await own.close();
    }
  }, 120_000);

  test('a deposit never bridges twice: past expires its failed intent holds the funds until the ledger frees them; a claim reported late completes the deposit, and no retry spends other funds meanwhile', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    // 5 USDC more than the deposit sit in the account (another deposit awaiting recovery, say): a retry could spend them.
    await ingest(
      api,
      depositEvents({ amount: '5000000', balance: '10000000', account: address, sender: sender(), txHash }),
    );
    const id = await depositIdOf(p, txHash);
    const started = await until(r, id, 'bridge-started');
    const expires = Number(
      (await call(p, 'GET', `/intent-operation/${started.intentId}?full=true`)).json.intentOp.expires,
    );
    await ingest(api, [intentFailure(started.intentId, 42161)]);

    // The lifecycle releases the intent at `expires` and reports RELEASED; the deposit's workflow takes it in and asks
    // the ledger, which still holds the funds (no snapshot at or after `expires` yet).
    await tookInReleased(id);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(expires);
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-started']); // neither bridge-failed nor a second attempt
    expect((await byTx(p, txHash))[0]).toMatchObject({ status: 'processing', attempts: 1, intentId: started.intentId });
    expect(await intentIsFinal(api.db, started.intentId)).toBe(false);

    // The relayer's claim, mined before `expires`, is reported now; a snapshot after its block shows the funds gone.
    const claimTx = nextTx();
    await ingest(api, [
      claimEvent(started.intentId, claimTx, { blockNumber: String(blockAt(expires - 1)), timestamp: expires - 1 }),
    ]);
    await ingest(api, [
      balanceAtExpiry({ chainId: 8453, token: BASE_USDC, account: address, balance: '5000000', expires }),
    ]);
    const complete = await until(r, id, 'bridge-complete', 1, 30_000);
    expect(complete).toMatchObject({ intentId: started.intentId, source: { transactionHash: claimTx } });
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
    expect((await byTx(p, txHash))[0]).toMatchObject({ status: 'completed', attempts: 1, intentId: started.intentId });
    // The other 5 USDC were never reserved by a second attempt.
    const [{ held }] = await api.db.query(
      'SELECT count(*)::int AS held FROM reservations WHERE account = $1 AND released_at IS NULL',
      [address.toLowerCase()],
    );
    expect(held).toBe(0);
  }, 90_000);

  test('a failed intent the arbiter still claims before its expires: the deposit completes (funds left), neither retried nor refunded', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    await ingest(
      api,
      depositEvents({ amount: '5000000', balance: '5000000', account: address, sender: sender(), txHash }),
    );
    const id = await depositIdOf(p, txHash);
    const started = await until(r, id, 'bridge-started');
    await ingest(api, [intentFailure(started.intentId, 42161)]);
    await waitFor(
      'the intent FAILED',
      async () => (await call(p, 'GET', `/intent-operation/${started.intentId}`)).json.status === 'FAILED',
      10_000,
    );
    const claimTx = nextTx();
    await ingest(api, [claimEvent(started.intentId, claimTx)]);
    // The next snapshot shows the claimed funds gone: the intent holds nothing more.
    await ingest(
      api,
      depositEvents({
        amount: '1',
        balance: '0',
        account: address,
        sender: sender(),
        txHash: nextTx(),
        block: 101,
      }).slice(0, 1),
    );
    const complete = await until(r, id, 'bridge-complete', 1, 30_000);
    expect(complete).toMatchObject({
      intentId: started.intentId,
      source: { transactionHash: claimTx },
      destination: { transactionHash: null },
    });
    expect((await byTx(p, txHash))[0]).toMatchObject({
      status: 'completed',
      attempts: 1,
      sourceTxHash: claimTx,
      destinationTxHash: null,
    });
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
  }, 60_000);
});

describe('on-ramp orders', () => {
  test("an order update for a registered account is forwarded to its project's webhook, once per status", async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const order = {
      id: `onramp-${Date.now()}`,
      type: 'onramp-order',
      account: address,
      orderId: 'ord_1',
      orderUuid: 'b1c2',
      status: 'processing',
      fiat: { currency: 'EUR', amount: '25.00' },
      method: 'card',
    };
    expect(
      (
        await ingest(api, [
          order,
          { ...order, id: `${order.id}-dup` },
          { ...order, id: `${order.id}-stranger`, account: sender() },
        ])
      ).status,
    ).toBe(200);
    await waitFor(
      'onramp-order webhook',
      async () => [...r.accepted.values()].some((d) => d.json.type === 'onramp-order'),
      20_000,
    );
    const forwarded = [...r.accepted.values()].filter((d) => d.json.type === 'onramp-order');
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0].json.data).toEqual({
      orderId: 'ord_1',
      orderUuid: 'b1c2',
      account: address.toLowerCase(),
      source: 'onramp',
      status: 'processing',
      rawStatus: 'processing',
      terminal: false,
      token: null,
      cryptoAmount: null,
      fiat: { currency: 'EUR', amount: '25.00', amountPlusFees: null, feeUsd: null },
      transactionId: null,
      method: 'card',
      exchange: null,
    });
  });
});

describe('GET /deposits', () => {
  test('filters by account and status, pages with a cursor, refuses bad queries with the deposit error body', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, { chain: 'eip155:8453', token: BASE_USDC });
    const hashes = [nextTx(), nextTx(), nextTx()];
    for (const txHash of hashes)
      await ingest(api, depositEvents({ amount: '2000000', account: address, sender: sender(), txHash }));
    for (const txHash of hashes) await until(r, await depositIdOf(p, txHash), 'bridge-complete');
    const first = await call(p, 'GET', `${DP}/deposits?account=${address}&status=completed&limit=2`);
    expect(first.json.deposits.map((d: { txHash: string }) => d.txHash)).toEqual([hashes[2], hashes[1]]);
    const second = await call(
      p,
      'GET',
      `${DP}/deposits?account=${address}&status=completed&limit=2&cursor=${first.json.nextCursor}`,
    );
    expect(second.json).toMatchObject({ deposits: [{ txHash: hashes[0] }], nextCursor: null });
    expect((await call(p, 'GET', `${DP}/deposits?account=${address}&status=processing`)).json.deposits).toEqual([]);
    const other = await newProject(api, 'other');
    expect((await call(other, 'GET', `${DP}/deposits?txHash=${hashes[0]}`)).json.deposits).toEqual([]);
    expect(
      (await call(p, 'GET', `${DP}/deposits?txHash=${hashes[0]}`, { headers: { 'x-api-version': '2026-01.alps' } }))
        .json.deposits,
    ).toHaveLength(1);
    expect((await call(p, 'GET', `${DP}/deposits`, { headers: { 'x-api-version': 'v2' } })).json).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    const openapi = (await call(p, 'GET', '/openapi.json')).json;
    expect(openapi.paths['/deposit-processor/deposits'].get.parameters.map((q: { name: string }) => q.name)).toEqual([
      'txHash',
      'account',
      'status',
      'limit',
      'cursor',
    ]);
    for (const path of [
      '/setup',
      '/register-managed',
      '/account/{address}/session',
      '/deposits/recovery',
      '/safe/withdraw',
    ])
      expect(openapi.paths[`/deposit-processor${path}`].post).toBeDefined();
    expect(openapi.paths['/deposit-processor/chains'].get).toBeDefined();
    const bad = await call(p, 'GET', `${DP}/deposits?status=lost&cursor=abc`);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: expect.arrayContaining([
        expect.objectContaining({ path: ['query', 'status'] }),
        expect.objectContaining({ path: ['query', 'cursor'] }),
      ]),
    });
  });
});

/** The owner's signed `/safe/withdraw` of `amount` USDC on Base from the account (its first request: nonce 1). */
async function ownerWithdraws(
  p: Project,
  owner: ReturnType<typeof privateKeyToAccount>,
  address: string,
  amount: string,
  nonce = '1',
) {
  const request = {
    account: address,
    token: BASE_USDC,
    amount,
    recipient: sender(),
    nonce,
    deadline: String(Math.floor(Date.now() / 1000) + 600),
  };
  const signature = await owner.signTypedData(
    withdrawTypedData(request, 8453, await projectSigner(p)) as Parameters<typeof owner.signTypedData>[0],
  );
  return call(p, 'POST', `${DP}/safe/withdraw`, { body: { ...request, chain: 'eip155:8453', signature } });
}

describe('deposit credit', () => {
  test("deposit credit is exact: a deposit refunded by a transfer made outside after its refund intent failed counts for nothing, so the session signer cannot move others' funds in the address", async () => {
    const { p, r, owner, address, small, id } = await belowMinimum(50);
    await until(r, id, 'deposit-rejected');
    expect((await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } })).status).toBe(202);
    let refundIntent = '';
    await waitFor(
      'the refund intent',
      async () =>
        !!(refundIntent = (await byTx(p, small))[0].refund.intentId) &&
        (await call(p, 'GET', `/intent-operation/${refundIntent}`)).status === 200,
      20_000,
    );
    // The refund intent fails; the refund is made by a transfer outside the processor, which the indexer reports.
    await ingest(api, [intentFailure(refundIntent, 8453)]);
    await ingest(api, [
      {
        id: `refund-${small}`,
        type: 'deposit-refund',
        chainId: 8453,
        transactionHash: nextTx(),
        account: address,
        token: BASE_USDC,
        amount: '999999',
        recipient: owner.address,
        blockNumber: '51',
      },
    ]);
    expect(await until(r, id, 'deposit-refunded')).toBeDefined();
    expect((await byTx(p, small))[0]).toMatchObject({ status: 'refunded', refund: { intentId: refundIntent } });
    // Someone else's 999999 arrive without a deposit of this project; the failed refund intent's hold ends at its expires.
    const expires = Number((await call(p, 'GET', `/intent-operation/${refundIntent}?full=true`)).json.intentOp.expires);
    await ingest(api, [
      balanceAtExpiry({ chainId: 8453, token: BASE_USDC, account: address, balance: '999999', expires }),
    ]);
    await waitFor('the failed refund intent holds nothing', () => intentIsFinal(api.db, refundIntent), 30_000);

    const res = await ownerWithdraws(p, owner, address, '500000');
    expect(res.json).toMatchObject({ error: 'Insufficient balance', code: 'BALANCE-1' });
    expect(res.status).toBe(400);

    // The control: a sibling deposit of the project, not refunded, gives the same withdrawal its credit, and it goes.
    const sibling = nextTx();
    await ingest(
      api,
      depositEvents({
        amount: '999999',
        balance: '1999998',
        account: address,
        sender: sender(),
        txHash: sibling,
        block: 60,
      }),
    );
    await until(r, await depositIdOf(p, sibling), 'deposit-rejected');
    const control = await ownerWithdraws(p, owner, address, '500000', '2');
    expect(control.status).toBe(202);
  }, 90_000);
});

describe('recovery', () => {
  test('A recovery checks the funds at the moment it starts', async () => {
    const { p, r, owner, address, small, id } = await belowMinimum();
    await until(r, id, 'deposit-rejected');
    // The owner takes half of it out first: what is left cannot refund the deposit.
    expect((await ownerWithdraws(p, owner, address, '500000')).status).toBe(202);
    const res = await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: id } });
    expect(res.json).toEqual({
      error: expect.stringMatching(
        /^Insufficient balance: the account holds \d+ of the deposit's 999999 for this project to refund$/,
      ),
      code: 'BALANCE-1',
      details: [{ message: expect.any(String), path: ['body', 'depositId'], code: 'BALANCE-1' }],
      traceId: expect.any(String),
    });
    expect(res.status).toBe(400);
    // Nothing was written: still rejected, no refund queued or started.
    expect((await byTx(p, small))[0]).toMatchObject({ status: 'failed', stage: 'rejected', refund: null });
    expect(
      await api.db.query('SELECT 1 FROM workflow_outbox WHERE workflow_id = $1', [`deposit-${id}-refund`]),
    ).toEqual([]);
    await expect(api.temporal.workflow.getHandle(`deposit-${id}-refund`).describe()).rejects.toThrow();
    expect(types(r, id)).toEqual(['deposit-received', 'deposit-rejected']);
  });
});

describe('funds gone', () => {
  /** Whether each of the intent's reservations is still held. */
  const heldBy = async (intentId: string) =>
    (
      await api.db.query(
        "SELECT released_at IS NULL AS held FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1",
        [intentId],
      )
    ).map((row: { held: boolean }) => row.held);
  const statusOf = async (p: Project, intentId: string) =>
    (await call(p, 'GET', `/intent-operation/${intentId}`)).json.status;

  test("The bridge fails promptly (and frees its hold) when its account's balance falls below what it needs", async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    await ingest(
      api,
      depositEvents({ amount: '5000000', balance: '5000000', account: address, sender: sender(), txHash, block: 100 }),
    );
    const id = await depositIdOf(p, txHash);
    const { intentId } = await until(r, id, 'bridge-started');
    const empty = (block: number) => [walletSnapshot(address, '0', { blockNumber: String(block) })];

    // Snapshots from before the reservation (an older block: ignored; the block it was checked at) fail nothing.
    await ingest(api, empty(99));
    await ingest(api, empty(100));
    expect(await statusOf(p, intentId)).toBe('PENDING');
    expect(await heldBy(intentId)).toEqual([true]);

    // The owner moved the funds out at block 101: the intent fails now, well before its fill deadline, and its hold
    // ends with the funds; the deposit goes on to its retry, which waits for funds that are not there.
    await ingest(api, empty(101));
    expect(await statusOf(p, intentId)).toBe('FAILED');
    expect(await heldBy(intentId)).toEqual([false]);
    // Released as gone: the project's deposit credit counts those funds as spent, so a retry cannot move others'.
    expect(
      await api.db.query(
        "SELECT released_gone AS gone FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1",
        [intentId],
      ),
    ).toEqual([{ gone: true }]);
    expect(await until(r, id, 'bridge-failed', 1, 10_000)).toMatchObject({
      intentId,
      attempt: 1,
      errorCode: 'BRIDGE-4',
      retryable: true,
    });
    expect((await byTx(p, txHash))[0]).toMatchObject({ status: 'processing', attempts: 1 });
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-started', 'bridge-failed']);

    // A fill already reported wins: a filled bridge keeps its hold for the relayer's claim, whatever the balance.
    const other = await registerManaged(p, baseToArb);
    const tx2 = nextTx();
    await ingest(
      api,
      depositEvents({ amount: '5000000', balance: '5000000', account: other.address, sender: sender(), txHash: tx2 }),
    );
    const id2 = await depositIdOf(p, tx2);
    const filled = (await until(r, id2, 'bridge-started')).intentId;
    await ingest(api, [fillEvent(filled, nextTx(), { chainId: 42161 })]);
    await ingest(api, [walletSnapshot(other.address, '0', { blockNumber: '101' })]);
    expect(await statusOf(p, filled)).toBe('FILLED');
    expect(await heldBy(filled)).toEqual([true]);
    expect(await until(r, id2, 'bridge-complete')).toMatchObject({ intentId: filled });
  });
});

describe('settlement truth', () => {
  /** A managed account's bridge of 5 USDC from Base to Arbitrum, started; its fill reported (unclaimed). */
  async function filledBridge() {
    const { p, r } = await subscribed();
    const { owner, address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    await ingest(
      api,
      depositEvents({ amount: '5000000', balance: '5000000', account: address, sender: sender(), txHash }),
    );
    const id = await depositIdOf(p, txHash);
    const started = await until(r, id, 'bridge-started');
    const fillTx = nextTx();
    await ingest(api, [fillEvent(started.intentId, fillTx, { chainId: 42161 })]);
    return { p, r, id, owner, address, txHash, fillTx, intentId: started.intentId as string };
  }

  test("deposits complete: a bridge's proven fill completes its deposit with bridge-complete, before any claim", async () => {
    const { p, r, id, txHash, fillTx, intentId } = await filledBridge();
    const complete = await until(r, id, 'bridge-complete');
    expect(complete).toMatchObject({
      intentId,
      source: { transactionHash: null, chain: 'eip155:8453' },
      destination: { transactionHash: fillTx, chain: 'eip155:42161' },
    });
    expect((await byTx(p, txHash))[0]).toMatchObject({
      status: 'completed',
      stage: 'completed',
      destinationTxHash: fillTx,
    });
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
    // The ledger still holds the source funds for the relayer's claim.
    const [{ held }] = await api.db.query(
      "SELECT count(*)::int AS held FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1 AND released_at IS NULL",
      [intentId],
    );
    expect(held).toBeGreaterThan(0);
  });

  test('review item 4: a filled bridge released at expires without a seen claim still spends its deposit credit', async () => {
    const { p, r, id, owner, address, intentId } = await filledBridge();
    await until(r, id, 'bridge-complete');
    // The relayer pulled the 5 USDC (its claim unseen); someone else's 5 USDC arrive without a deposit of this project,
    // and a snapshot at the intent's expires releases its hold.
    const expires = Number((await call(p, 'GET', `/intent-operation/${intentId}?full=true`)).json.intentOp.expires);
    await ingest(api, [
      balanceAtExpiry({ chainId: 8453, token: BASE_USDC, account: address, balance: '5000000', expires }),
    ]);
    await waitFor(
      'the hold released at expires',
      async () =>
        (
          await api.db.query(
            "SELECT 1 FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1 AND released_at IS NULL",
            [intentId],
          )
        ).length === 0,
      30_000,
    );
    const res = await ownerWithdraws(p, owner, address, '1000000');
    // The address holds 5 USDC, none of it this project's: its deposit left with the bridge.
    expect(res.json).toMatchObject({ error: 'Insufficient balance', code: 'BALANCE-1' });
    expect(res.status).toBe(400);
  }, 90_000);
});

describe('POST /safe/withdraw and GET /chains', () => {
  test("the owner's signed withdrawal becomes an intent signed by the session signer; refusals carry their codes", async () => {
    const { p } = await subscribed();
    const chains = await call(p, 'GET', `${DP}/chains`);
    expect(chains.status).toBe(200);
    expect(chains.json.sessionSigner).toBe(api.services.sessionSigner(p.projectId).address);
    expect(chains.json.chains).toContainEqual(
      expect.objectContaining({
        chain: 'eip155:8453',
        deposit: true,
        depositTokens: expect.arrayContaining([{ symbol: 'USDC', address: BASE_USDC, decimals: 6 }]),
      }),
    );

    // The project moves only what its own deposits brought into the account (docs/trust-model.md, deposit
    // credit): a deposit of 5 USDC on Base, its target, completes in place.
    const { owner, address } = await registerManaged(p, { chain: 'eip155:8453', token: BASE_USDC });
    const depositTx = nextTx();
    await ingest(
      api,
      depositEvents({
        amount: '5000000',
        account: address,
        sender: sender(),
        txHash: depositTx,
        balance: '5000000',
        block: 7,
      }),
    );
    await waitFor(
      'the deposit completes in place',
      async () => (await byTx(p, depositTx))[0]?.status === 'completed',
      30_000,
    );
    const recipient = sender();
    const deadline = String(Math.floor(Date.now() / 1000) + 600);
    const request = { account: address, token: BASE_USDC, amount: '1000000', recipient, nonce: '1', deadline };
    const signer = await projectSigner(p);
    const sign = (by: typeof owner, r: typeof request, domainSigner = signer) =>
      by.signTypedData(withdrawTypedData(r, 8453, domainSigner) as Parameters<typeof owner.signTypedData>[0]);
    const body = { ...request, chain: 'eip155:8453', signature: await sign(owner, request) };

    const res = await call(p, 'POST', `${DP}/safe/withdraw`, { body });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({
      message: 'Withdrawal submitted',
      intentId: expect.stringMatching(/^[0-9]+$/),
      status: 'PENDING',
    });
    expect((await call(p, 'POST', `${DP}/safe/withdraw`, { body })).json.intentId).toBe(res.json.intentId);
    const intent = await call(p, 'GET', `/intent-operation/${res.json.intentId}?full=true`);
    expect(intent.json).toMatchObject({ status: 'PENDING', destinationChainId: 8453, userAddress: address });
    expect(intent.json.intentOp.elements[0].mandate.recipient).toBe(recipient);

    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await call(p, 'POST', `${DP}/safe/withdraw`, {
      body: { ...body, nonce: '2', signature: await sign(stranger, { ...request, nonce: '2' }) },
    });
    expect(forged.status).toBe(400);
    expect(forged.json).toEqual({
      error: "Invalid withdrawal signature: not signed by the account's owner",
      details: [
        { message: "is not the account owner's Withdraw signature", path: ['body', 'signature'], code: 'signature' },
      ],
      traceId: expect.any(String),
    });
    // Signed for another project (its signer names the domain): not this project's owner signature.
    const elsewhere = await call(p, 'POST', `${DP}/safe/withdraw`, {
      body: {
        ...body,
        nonce: '4',
        signature: await sign(owner, { ...request, nonce: '4' }, await projectSigner(await newProject(api, 'other'))),
      },
    });
    expect(elsewhere.status).toBe(400);
    const late = { ...request, nonce: '5', deadline: String(Math.floor(Date.now() / 1000) - 1) };
    const expired = await call(p, 'POST', `${DP}/safe/withdraw`, {
      body: { ...late, chain: 'eip155:8453', signature: await sign(owner, late) },
    });
    expect(expired.status).toBe(400);
    expect(expired.json).toEqual({
      error: 'The withdrawal deadline has passed',
      code: 'WITHDRAW-1',
      details: [{ message: 'is in the past', path: ['body', 'deadline'], code: 'WITHDRAW-1' }],
      traceId: expect.any(String),
    });
    const reused = { ...request, amount: '2000000' };
    expect(
      (
        await call(p, 'POST', `${DP}/safe/withdraw`, {
          body: { ...reused, chain: 'eip155:8453', signature: await sign(owner, reused) },
        })
      ).status,
    ).toBe(409);
    const tooMuch = { ...request, amount: '9000000', nonce: '3' };
    const poor = await call(p, 'POST', `${DP}/safe/withdraw`, {
      body: { ...tooMuch, chain: 'eip155:8453', signature: await sign(owner, tooMuch) },
    });
    expect(poor.status).toBe(400);
    expect(poor.json).toMatchObject({ error: 'Insufficient balance', code: 'BALANCE-1' });

    // Quoted, but its submit refused (the quote lapsed): the nonce is not spent, the same signed request goes through later.
    const lapse = { ...request, amount: '500000', nonce: '6' };
    const lapseBody = { ...lapse, chain: 'eip155:8453', signature: await sign(owner, lapse) };
    await api.db.query(
      "CREATE OR REPLACE FUNCTION test_lapse_quote() RETURNS trigger AS $$ BEGIN UPDATE quotes SET expires_at = now() - interval '1 hour' WHERE nonce = NEW.intent_id; RETURN NEW; END $$ LANGUAGE plpgsql",
    );
    await api.db.query(
      'CREATE TRIGGER test_lapse_quote AFTER UPDATE OF intent_id ON deposit_withdrawals FOR EACH ROW WHEN (NEW.intent_id IS NOT NULL) EXECUTE FUNCTION test_lapse_quote()',
    );
    let lapsed;
    try {
      lapsed = await call(p, 'POST', `${DP}/safe/withdraw`, { body: lapseBody });
    } finally {
      await api.db.query('DROP TRIGGER test_lapse_quote ON deposit_withdrawals');
    }
    expect(lapsed.status).toBe(404);
    expect(
      (
        await api.db.query('SELECT intent_id FROM deposit_withdrawals WHERE account = $1 AND nonce = 6', [
          address.toLowerCase(),
        ])
      )[0].intent_id,
    ).toBeNull();
    const again = await call(p, 'POST', `${DP}/safe/withdraw`, { body: lapseBody });
    expect(again.status).toBe(202);
  });

  test('numbers past their column or uint256 are 400s with the validation body, never 500s', async () => {
    const { p } = await subscribed();
    const cursor = await call(p, 'GET', `${DP}/deposits?cursor=9999999999999999999`);
    expect(cursor.status).toBe(400);
    expect(cursor.json).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ path: ['query', 'cursor'], code: 'pattern' })],
      traceId: expect.any(String),
    });
    const recovery = await call(p, 'POST', `${DP}/deposits/recovery`, { body: { depositId: '9999999999999999999' } });
    expect(recovery.status).toBe(400);
    expect(recovery.json).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ path: ['body', 'depositId'], code: 'pattern' })],
      traceId: expect.any(String),
    });
    const huge = (2n ** 256n).toString();
    const base = {
      account: sender(),
      chain: 'eip155:8453',
      token: BASE_USDC,
      amount: '1',
      recipient: sender(),
      nonce: '1',
      deadline: '1',
      signature: '0x1234',
    };
    for (const field of ['amount', 'nonce', 'deadline'] as const) {
      const res = await call(p, 'POST', `${DP}/safe/withdraw`, { body: { ...base, [field]: huge } });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: expect.arrayContaining([expect.objectContaining({ path: ['body', field] })]),
        traceId: expect.any(String),
      });
    }
  });
});
