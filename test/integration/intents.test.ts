import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createProject } from '../../src/projects/api-keys';
import {
  ARB_USDC,
  BASE_USDC,
  blockAt,
  claimEvent,
  eventId,
  fillEvent,
  getCompactTypedData,
  lockedSnapshot,
  TX,
  walletSnapshot,
} from '../support/fixtures';
import { ingestEvents } from '../../src/ingestion/ingest';
import { waitFor } from '../../src/dev/processes';
import { Api, call, fundedAccount, ingest, startApi, until } from '../support/harness';
import { activeReservations, reservedFor } from '../support/reservations';
import { submitOwnIntent } from '../support/intents';
import { releaseIntent } from '../../src/intents/transition-store';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const v1: any = require(path.join(sdkDir, 'orchestrator'));
const { createAuthProvider }: any = require(path.join(sdkDir, 'auth/provider'));
const permit2: any = require(path.join(sdkDir, 'execution/permit2'));
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

let api: Api;
let client: any; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  api = await startApi();
  client = v1.getOrchestrator(createAuthProvider({ apiKey: api.apiKey }), api.url);
});
afterAll(() => api.close());

const routeInput = (address: string, amount: bigint, extra: Record<string, unknown> = {}) => ({
  account: { address, accountType: 'EOA', setupOps: [] },
  destinationChainId: 42161,
  destinationExecutions: [],
  tokenRequests: [{ tokenAddress: ARB_USDC, amount }],
  options: { topupCompact: false, signatureMode: 1, ...extra },
});

/** The published client's status of the intent, once it is one of `statuses`. */
const clientStatus = (intentId: string, statuses: string[]) =>
  until(`intent ${intentId} ${statuses}`, async () => {
    const status = await client.getIntentOpStatus(BigInt(intentId));
    return statuses.includes(status.status) ? status : undefined;
  });

/** Signs with the client's own typed-data builder, as its EOA flow does: one signature for every element. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function sign(account: ReturnType<typeof privateKeyToAccount>, intentOp: any) {
  const signature = await account.signTypedData(getCompactTypedData(intentOp));
  return { ...intentOp, originSignatures: intentOp.elements.map(() => signature), destinationSignature: signature };
}

describe('the published 1.15.0 client, unchanged', () => {
  test('route → sign → submit → status; fill and claim events complete it', async () => {
    const account = await fundedAccount(api, '5000000');
    const route = await client.getIntentRoute(routeInput(account.address, 1_000_000n));
    const op = route.intentOp;
    expect(op.elements).toHaveLength(1);
    expect(op.elements[0]).toMatchObject({
      chainId: '8453',
      mandate: {
        destinationChainId: '42161',
        qualifier: { settlementContext: { fundingMethod: 'COMPACT', settlementLayer: 'ACROSS' } },
      },
    });
    expect(BigInt(op.elements[0].idsAndAmounts[0][0]) >> 248n).not.toBe(0n); // lock ids carry a non-zero top byte
    expect(BigInt(op.elements[0].idsAndAmounts[0][1])).toBeGreaterThan(1_000_000n); // amount plus fees
    expect(route.intentCost.tokensReceived[0]).toMatchObject({ targetAmount: '1000000', hasFulfilled: true });

    const submitted = await client.submitIntent(await sign(account, op));
    expect(submitted.result).toEqual({ id: BigInt(op.nonce).toString(), status: 'PENDING' });
    const intentId = submitted.result.id;
    const pending = await client.getIntentOpStatus(BigInt(intentId));
    expect(pending).toMatchObject({ status: 'PENDING', destinationChainId: 42161, userAddress: account.address });
    expect(pending.claims).toEqual([{ chainId: 8453, status: 'PENDING', depositId: intentId }]);
    expect(await activeReservations(api, intentId)).toBe(1);

    // A claim before the fill, a duplicate, then the fill (mined after the quote).
    const filledAt = Math.floor(Date.now() / 1000);
    await ingest(api, [
      {
        id: `claim-${intentId}`,
        type: 'claim',
        chainId: 8453,
        nonce: intentId,
        transactionHash: TX(2),
        timestamp: 1_700_000_100,
      },
    ]);
    await ingest(api, [
      { id: `claim-${intentId}`, type: 'claim', chainId: 8453, nonce: intentId, transactionHash: TX(3), timestamp: 1 },
    ]);
    await ingest(api, [
      {
        id: `fill-${intentId}`,
        type: 'fill',
        chainId: 42161,
        nonce: intentId,
        transactionHash: TX(1),
        timestamp: filledAt,
      },
    ]);
    const done = await clientStatus(intentId, ['COMPLETED']);
    expect(done).toMatchObject({ fillTransactionHash: TX(1), fillTimestamp: filledAt });
    expect(done.claims).toEqual([
      {
        chainId: 8453,
        status: 'CLAIMED',
        claimTimestamp: 1_700_000_100,
        claimTransactionHash: TX(2),
        depositId: intentId,
      },
    ]);
    // Released once the indexer's next snapshot shows the claimed funds gone, not before.
    expect(await activeReservations(api, intentId)).toBe(1);
    await ingest(api, [lockedSnapshot(account.address, '3900000', { blockNumber: '2' })]);
    expect(await activeReservations(api, intentId)).toBe(0);

    const { apiKey: otherProject } = await createProject(api.db, 'other');
    const foreign = await call(api, 'GET', `/intent-operation/${intentId}`, { headers: { 'x-api-key': otherProject } });
    expect(foreign.status).toBe(404);
    expect(foreign.json.message).toBe(`No such intent with nonce ${intentId}`);

    const full = await call(api, 'GET', `/intent-operation/${intentId}?full=true`);
    expect(full.json.history.map((h: { status: string }) => h.status)).toEqual(['PENDING', 'COMPLETED']);
    expect(full.json.intentOp.nonce).toBe(op.nonce);
  });

  /** An intent left unfilled: EXPIRED, then its lifecycle ended at `expires` (INTENT_CLAIM_WINDOW_SECONDS=5 in tests). */
  async function expiredAndEnded(locked: string) {
    const account = await fundedAccount(api, locked);
    const route = await client.getIntentRoute(
      routeInput(account.address, 1_000_000n, { customDeadline: Math.floor(Date.now() / 1000) + 5 }),
    );
    const { result } = await client.submitIntent(await sign(account, route.intentOp));
    expect(await activeReservations(api, result.id)).toBe(1);
    const expired = await clientStatus(result.id, ['EXPIRED']);
    expect(expired.claims[0].status).toBe('EXPIRED');
    await api.temporal.workflow.getHandle(`intent-${result.id}`).result();
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(Number(route.intentOp.expires));
    return { account, id: result.id as string, expires: Number(route.intentOp.expires) };
  }
  const snapshot = (account: string, block: number, locked: string, blockTimestamp?: number) =>
    ingest(api, [
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account,
        token: BASE_USDC,
        locked,
        blockNumber: String(block),
        ...(blockTimestamp ? { blockTimestamp } : {}),
      },
    ]);

  test('21.2 an intent not filled by its fill deadline expires; past `expires` its funds stay reserved until a snapshot at or after it', async () => {
    const { account, id: intentId, expires } = await expiredAndEnded('3000000');
    // The stored snapshot may predate a claim mined in the last block before `expires`.
    expect(await activeReservations(api, intentId)).toBe(1);
    await snapshot(account.address, 2, '3000000'); // without a block timestamp: releases nothing
    await snapshot(account.address, blockAt(expires - 1), '3000000', expires - 1);
    expect(await activeReservations(api, intentId)).toBe(1);
    await snapshot(account.address, blockAt(expires), '3000000', expires);
    expect(await activeReservations(api, intentId)).toBe(0);
    // A late fill changes nothing.
    await ingest(api, [fillEvent(intentId, TX(9), { timestamp: expires })]);
    expect((await client.getIntentOpStatus(BigInt(intentId))).status).toBe('EXPIRED');
  });

  test('21.2 a claim mined just before `expires` and reported after the lifecycle ended is recorded and settles by its block', async () => {
    const { account, id: intentId, expires } = await expiredAndEnded('3000000');
    const late = await ingest(api, [claimEvent(intentId, TX(11), { timestamp: expires - 1, blockNumber: '7' })]);
    expect(late.status).toBe(200);
    const status = await client.getIntentOpStatus(BigInt(intentId));
    expect(status.claims).toEqual([
      expect.objectContaining({ chainId: 8453, claimTransactionHash: TX(11), claimTimestamp: expires - 1 }),
    ]);
    expect(await activeReservations(api, intentId)).toBe(1);
    await snapshot(account.address, 7, '1900000'); // the claim's block shows the claimed funds gone
    expect(await activeReservations(api, intentId)).toBe(0);
  });

  test('21.9 a fill reported after a failure (another API process delivered the failure first) still fills the intent, and is recorded', async () => {
    const account = await fundedAccount(api, '3000000');
    const route = await client.getIntentRoute(routeInput(account.address, 1_000_000n));
    const { result } = await client.submitIntent(await sign(account, route.intentOp));
    const wait = { 'x-indexer-key': api.indexerKey };
    await call(api, 'POST', '/indexer/events?wait=true', {
      body: {
        events: [{ id: eventId(), type: 'failure', chainId: 42161, nonce: result.id, reason: 'relayer reverted' }],
      },
      headers: wait,
    });
    await clientStatus(result.id, ['FAILED']);
    const filledAt = Math.floor(Date.now() / 1000);
    await call(api, 'POST', '/indexer/events?wait=true', {
      body: {
        events: [fillEvent(result.id, TX(12), { timestamp: filledAt })],
      },
      headers: wait,
    });
    const filled = await clientStatus(result.id, ['FILLED']);
    expect(filled).toMatchObject({ fillTransactionHash: TX(12), fillTimestamp: filledAt });
    await ingest(api, [claimEvent(result.id, TX(13), { timestamp: filledAt, blockNumber: '2' })]);
    await clientStatus(result.id, ['COMPLETED']);
    const full = await call(api, 'GET', `/intent-operation/${result.id}?full=true`);
    expect(full.json.history.map((h: { status: string }) => h.status)).toEqual([
      'PENDING',
      'FAILED',
      'FILLED',
      'COMPLETED',
    ]);
  });

  test('a fill is visible once its batch is answered, before the lifecycle has run; the lifecycle agrees once it reads its record', async () => {
    const account = await fundedAccount(api, '3000000');
    const route = await client.getIntentRoute(
      routeInput(account.address, 1_000_000n, { customDeadline: Math.floor(Date.now() / 1000) + 5 }),
    );
    const { result } = await client.submitIntent(await sign(account, route.intentOp));
    const filledAt = Math.floor(Date.now() / 1000);
    const answer = await ingest(api, [fillEvent(result.id, TX(21), { timestamp: filledAt })]);
    expect(answer.json).toMatchObject({ applied: 1 });
    // No wait: the batch's transaction recorded the status.
    expect(await client.getIntentOpStatus(BigInt(result.id))).toMatchObject({
      status: 'FILLED',
      fillTransactionHash: TX(21),
      fillTimestamp: filledAt,
    });
    const lifecycle = api.temporal.workflow.getHandle(`intent-${result.id}`);
    await waitFor(
      'the lifecycle has the fill',
      async () => (await lifecycle.query<{ status: string }>('state').catch(() => undefined))?.status === 'FILLED',
      30_000,
    );
    const full = await call(api, 'GET', `/intent-operation/${result.id}?full=true`);
    expect(full.json.history.map((h: { status: string }) => h.status)).toEqual(['PENDING', 'FILLED']);
  });

  test("one batch of several intents' events, in any order: each intent moves as its lifecycle would, with its history and its claim's settlement", async () => {
    // Each intent's own events in their order (the first fill and the first claim on a chain count); the batch
    // interleaves the three intents' events in several ways, each on fresh intents.
    const interleavings = [
      ['b', 'a', 'a', 'b', 'c', 'a', 'a'],
      ['c', 'a', 'a', 'a', 'a', 'b', 'b'],
      ['a', 'b', 'c', 'a', 'b', 'a', 'a'],
      ['b', 'b', 'c', 'a', 'a', 'a', 'a'],
    ];
    let n = 100;
    const completed: { id: string; history: string[] }[] = [];
    for (const order of interleavings) {
      const [a, b, c] = await Promise.all(
        [0, 1, 2].map(async () => {
          const account = await fundedAccount(api, '3000000');
          // A deadline close by: each lifecycle reads what the batch recorded when its start delay ends.
          const route = await client.getIntentRoute(
            routeInput(account.address, 1_000_000n, { customDeadline: Math.floor(Date.now() / 1000) + 8 }),
          );
          return (await client.submitIntent(await sign(account, route.intentOp))).result.id as string;
        }),
      );
      const at = Math.floor(Date.now() / 1000);
      const tx = { a: [TX(n + 2), TX(n + 3), TX(n + 6), TX(n + 7)], b: [TX(n + 1), TX(n + 4)], c: [TX(n + 5)] };
      const own = {
        a: [
          fillEvent(a, tx.a[0], { timestamp: at }),
          claimEvent(a, tx.a[1], { timestamp: at, blockNumber: '12' }),
          fillEvent(a, tx.a[2], { timestamp: at }), // a second fill: the first one counts
          claimEvent(a, tx.a[3], { timestamp: at, blockNumber: '13' }), // a second claim on the chain: the first one counts
        ],
        b: [
          claimEvent(b, tx.b[0], { timestamp: at, blockNumber: '11' }), // before its fill: kept, counted when it comes
          fillEvent(b, tx.b[1], { timestamp: at }),
        ],
        c: [fillEvent(c, tx.c[0], { timestamp: at })],
      };
      n += 10;
      const next = { a: 0, b: 0, c: 0 };
      const batch = order.map((k) => own[k as 'a' | 'b' | 'c'][next[k as 'a' | 'b' | 'c']++]);
      expect((await ingest(api, batch)).json).toMatchObject({ applied: 7 });
      // Read at once: the batch's own transaction recorded every status.
      const full = async (id: string) => (await call(api, 'GET', `/intent-operation/${id}?full=true`)).json;
      const statuses = async (id: string) => (await full(id)).history.map((h: { status: string }) => h.status);
      expect({ order, a: await statuses(a), b: await statuses(b), c: await statuses(c) }).toEqual({
        order,
        a: ['PENDING', 'FILLED', 'COMPLETED'],
        b: ['PENDING', 'COMPLETED'],
        c: ['PENDING', 'FILLED'],
      });
      expect(await full(a)).toMatchObject({ fillTransactionHash: tx.a[0] });
      expect((await full(a)).claims).toEqual([
        expect.objectContaining({ status: 'CLAIMED', claimTransactionHash: tx.a[1] }),
      ]);
      expect((await full(b)).claims).toEqual([
        expect.objectContaining({ status: 'CLAIMED', claimTransactionHash: tx.b[0] }),
      ]);
      // Each claim hands its chain's reservation to settlement at its own block; the unclaimed one holds its funds.
      const settlesAt = async (id: string) =>
        (await api.db.query('SELECT release_after_block::text AS b FROM reservations WHERE owner_id = $1', [id]))[0].b;
      expect([await settlesAt(a), await settlesAt(b), await settlesAt(c)]).toEqual(['12', '11', null]);
      completed.push(
        { id: a, history: ['PENDING', 'FILLED', 'COMPLETED'] },
        { id: b, history: ['PENDING', 'COMPLETED'] },
      );
    }
    // Their lifecycles end where the batches left them, and write nothing more.
    for (const { id, history } of completed) {
      expect(await api.temporal.workflow.getHandle(`intent-${id}`).result()).toBe('COMPLETED');
      const full = (await call(api, 'GET', `/intent-operation/${id}?full=true`)).json;
      expect(full.history.map((h: { status: string }) => h.status)).toEqual(history);
    }
  }, 120_000);

  test('a fill recorded by its batch and never signalled: the lifecycle reads it at its deadline, stays filled, never EXPIRED, and ends on the claim it reads later', async () => {
    const account = await fundedAccount(api, '3000000');
    const route = await client.getIntentRoute(
      routeInput(account.address, 1_000_000n, { customDeadline: Math.floor(Date.now() / 1000) + 5 }),
    );
    const { result } = await client.submitIntent(await sign(account, route.intentOp));
    const filledAt = Number(route.intentOp.elements[0].mandate.fillDeadline);
    const { signals } = await ingestEvents(
      api.db,
      [fillEvent(result.id, TX(22), { timestamp: filledAt })],
      api.services.defaultLockTag,
      { registry: api.services.registry, config: api.services.config },
    );
    // Its lifecycle waits out its start delay: the batch wakes nothing, the record has the fill.
    expect(signals).toEqual([]);
    expect((await client.getIntentOpStatus(BigInt(result.id))).status).toBe('FILLED');
    const lifecycle = api.temporal.workflow.getHandle(`intent-${result.id}`);
    await waitFor(
      'the lifecycle has read the fill at its deadline',
      async () => (await lifecycle.query<{ status: string }>('state').catch(() => undefined))?.status === 'FILLED',
      30_000,
    );
    // The claim, reported while it waits for claims, reaches it (signalled, or read at `expires`).
    await ingest(api, [claimEvent(result.id, TX(23), { timestamp: filledAt, blockNumber: '2' })]);
    expect(await lifecycle.result()).toBe('COMPLETED');
    const full = await call(api, 'GET', `/intent-operation/${result.id}?full=true`);
    expect(full.json.history.map((h: { status: string }) => h.status)).toEqual(['PENDING', 'FILLED', 'COMPLETED']);
  });

  test('Insufficient balance and unsupported inputs map to the client error classes', async () => {
    const account = await fundedAccount(api, '100');
    await expect(client.getIntentRoute(routeInput(account.address, 1_000_000n))).rejects.toBeInstanceOf(
      v1.InsufficientBalanceError,
    );
    await expect(
      client.getIntentRoute({ ...routeInput(account.address, 1n), destinationChainId: 999999 }),
    ).rejects.toBeInstanceOf(v1.UnsupportedChainError);
    await expect(
      client.getIntentRoute({
        ...routeInput(account.address, 1n),
        tokenRequests: [{ tokenAddress: BASE_USDC, amount: 1n }],
      }),
    ).rejects.toBeInstanceOf(v1.TokenNotSupportedError);
    await expect(
      client.getIntentRoute({
        ...routeInput(account.address, 1n),
        tokenRequests: [{ tokenAddress: ARB_USDC }, { tokenAddress: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1' }],
      }),
    ).rejects.toBeInstanceOf(v1.OnlyOneTargetTokenAmountCanBeUnsetError);
  });
});

describe('funding and account kinds', () => {
  test('wallet funds only: a Permit2 route with the approvals an EOA needs, signed per element and accepted', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await ingest(api, [walletSnapshot(account.address, '5000000')]);
    const route = await client.getIntentRoute(routeInput(account.address, 1_000_000n));
    const element = route.intentOp.elements[0];
    expect(element.mandate.qualifier.settlementContext.fundingMethod).toBe('PERMIT2');
    expect(route.tokenRequirements['8453'][BASE_USDC]).toEqual({
      type: 'approval',
      amount: element.idsAndAmounts[0][1],
      spender: '0x000000000022D473030F116dDEE9F6B43aC78BA3',
    });
    const signatures = await Promise.all(
      route.intentOp.elements.map((e: unknown) =>
        account.signTypedData(permit2.getTypedData(e, BigInt(route.intentOp.nonce), BigInt(route.intentOp.expires))),
      ),
    );
    const { result } = await client.submitIntent({
      ...route.intentOp,
      originSignatures: signatures,
      destinationSignature: signatures.at(-1),
    });
    expect(result.status).toBe('PENDING');
    const [{ lock_tag }] = await api.db.query('SELECT lock_tag FROM reservations WHERE owner_id = $1', [result.id]);
    expect(lock_tag).toBe('wallet');
  });

  test('a smart account signature without an RPC for its chain is refused with a clear message', async () => {
    const account = await fundedAccount(api);
    const route = await client.getIntentRoute({
      ...routeInput(account.address, 1_000_000n),
      account: { address: account.address, accountType: 'ERC7579', setupOps: [] },
    });
    expect(route.intentOp.elements[0].smartAccountStatus).toMatchObject({ accountType: 'smartAccount' });
    const res = await call(api, 'POST', '/intent-operations', {
      body: { signedIntentOp: await sign(account, route.intentOp) },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(
      'Smart account signatures are verified on chain and this deployment cannot verify them on chain 8453',
    );
  });
});

describe('submission checks', () => {
  async function quoted(locked = '5000000', amount = 1_000_000n) {
    const account = await fundedAccount(api, locked);
    const route = await client.getIntentRoute(routeInput(account.address, amount));
    return { account, op: route.intentOp };
  }

  test('a tampered operation or a foreign signature: 400 Invalid bundle signature, nothing reserved', async () => {
    const { account, op } = await quoted();
    const tampered = await sign(account, {
      ...op,
      elements: [
        {
          ...op.elements[0],
          mandate: { ...op.elements[0].mandate, recipient: '0x000000000000000000000000000000000000dEaD' },
        },
      ],
    });
    await expect(client.submitIntent(tampered)).rejects.toBeInstanceOf(v1.InvalidIntentSignatureError);
    const foreign = await sign(privateKeyToAccount(generatePrivateKey()), op);
    await expect(client.submitIntent(foreign)).rejects.toBeInstanceOf(v1.InvalidIntentSignatureError);
    const res = await call(api, 'POST', '/intent-operations', {
      body: { signedIntentOp: { ...(await sign(account, op)), serverSignature: `0x${'11'.repeat(65)}` } },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('Invalid bundle signature');
    expect(await activeReservations(api, BigInt(op.nonce).toString())).toBe(0);
  });

  test('dry run verifies and changes nothing; an expired quote is refused', async () => {
    const { account, op } = await quoted();
    const signed = await sign(account, op);
    const dry = await client.submitIntent(signed, true);
    expect(dry.result.status).toBe('VERIFIED');
    expect((await call(api, 'GET', `/intent-operation/${BigInt(op.nonce)}`)).status).toBe(404);
    await api.db.query("UPDATE quotes SET expires_at = now() - interval '1 second' WHERE nonce = $1", [
      BigInt(op.nonce).toString(),
    ]);
    const res = await call(api, 'POST', '/intent-operations', { body: { signedIntentOp: signed } });
    expect(res.status).toBe(404);
    expect(res.json.message).toMatch(/^Quote expired or not found/);
  });

  test('the same signed operation submitted twice returns the same id and starts one workflow', async () => {
    const { account, op } = await quoted();
    const signed = await sign(account, op);
    const [a, b] = await Promise.all([client.submitIntent(signed), client.submitIntent(signed)]);
    expect(a.result.id).toBe(b.result.id);
    const again = await client.submitIntent(signed);
    expect(again.result.id).toBe(a.result.id);
    expect(await activeReservations(api, a.result.id)).toBe(1);
    const runs: string[] = [];
    for await (const wf of api.temporal.workflow.list({ query: `WorkflowId = 'intent-${a.result.id}'` }))
      runs.push(wf.runId);
    expect(runs.length).toBeLessThanOrEqual(1);
    expect((await api.temporal.workflow.getHandle(`intent-${a.result.id}`).describe()).status.name).toBe('RUNNING');
  });

  test('concurrent submits over one balance never reserve more than it holds', async () => {
    const account = await fundedAccount(api, '10000000');
    // Quotes do not reserve: five quotes of ~4 USDC each are all valid until submitted.
    const ops = await Promise.all(
      Array.from({ length: 5 }, () =>
        client
          .getIntentRoute(routeInput(account.address, 4_000_000n))
          .then((r: { intentOp: unknown }) => sign(account, r.intentOp)),
      ),
    );
    const results = await Promise.allSettled(ops.map((op) => client.submitIntent(op)));
    const accepted = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(accepted).toHaveLength(2);
    expect(refused.map((r) => `${r.reason?.constructor?.name}: ${r.reason?.message}`)).toEqual(
      Array(3).fill('InsufficientBalanceError: Insufficient balance'),
    );
    expect(await reservedFor(api, account.address)).toBeLessThanOrEqual(10_000_000n);
  });
});

describe('POST /intents/split', () => {
  test('splits across relayers, and answers 422 INSUFFICIENT_LIQUIDITY with what is available', async () => {
    const OP_USDC = '0x0b2c639c533813f4aa9d7837caf62653d097ff85';
    await ingest(api, [
      { id: eventId(), type: 'liquidity', chainId: 10, settlementLayer: 'ACROSS', token: OP_USDC, amount: '600' },
      { id: eventId(), type: 'liquidity', chainId: 10, settlementLayer: 'RELAY', token: OP_USDC, amount: '500' },
    ]);
    expect(await client.splitIntents({ chain: { id: 10 }, tokens: { [OP_USDC]: 1000n } })).toEqual({
      intents: [{ [OP_USDC]: 600n }, { [OP_USDC]: 400n }],
    });
    const err = await client
      .splitIntents({ chain: { id: 10 }, tokens: { [OP_USDC]: 1500n }, settlementLayers: ['ACROSS', 'RELAY'] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(v1.InsufficientLiquidityError);
    const res = await call(api, 'POST', '/intents/split', { body: { chainId: 10, tokens: { [OP_USDC]: '1500' } } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      error: 'INSUFFICIENT_LIQUIDITY',
      availableIntents: [{ [OP_USDC]: '600' }, { [OP_USDC]: '500' }],
      unfillable: { [OP_USDC]: '400' },
      traceId: expect.any(String),
    });
  });
});

describe('lock order', () => {
  test('review item 5: releasing an intent at expires takes its row before its reservations, as an indexer batch does', async () => {
    const account = await fundedAccount(api);
    const id = await submitOwnIntent(api, account);
    // An indexer batch recording this intent's event holds its row...
    const batch = api.db.createQueryRunner();
    await batch.connect();
    await batch.startTransaction();
    await batch.query('SELECT 1 FROM intents WHERE id = $1 FOR UPDATE', [id]);
    const release = releaseIntent(api.db, id);
    await waitFor(
      'the release waiting for the row',
      async () =>
        (
          await api.db.query(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND query LIKE '%intents%'",
          )
        ).length > 0,
      10_000,
    );
    // ...and then releases its reservations: they must not be held by the release waiting behind it (a deadlock).
    const free = await batch
      .query("SELECT id FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1 FOR UPDATE NOWAIT", [id])
      .then(
        (rows: unknown[]) => rows.length,
        (err: Error) => err.message,
      )
      .finally(async () => {
        await batch.rollbackTransaction();
        await batch.release();
      });
    expect(free).toBeGreaterThan(0);
    expect(await release).toBe(true);
  });
});
