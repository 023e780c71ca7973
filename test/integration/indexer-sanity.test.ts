import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { waitFor } from '../../src/dev/processes';
import { proveAccount } from '../../src/projects/account-store';
import { ARB_USDC, BASE_USDC, blockAt, claimEvent, eventId, fillEvent, lockedSnapshot, TX } from '../support/fixtures';
import { Api, call, fundedAccount, ingest, startApi } from '../support/harness';
import { submitOwnIntent } from '../support/intents';
import { activeReservations } from '../support/reservations';

/**
 * What the indexer route refuses though the schema admits it, through the HTTP API with the real worker: block
 * timestamps that cannot be a mined block's, fills and claims that do not match their intent, and a batch that
 * reports two amounts for one balance.
 */
let api: Api;
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** How often this API process counted a refusal of `type` for `reason` (GET /metrics; the count is shared: compare before and after). */
async function refusals(type: string, reason: string): Promise<number> {
  const { text } = await call(api, 'GET', '/metrics');
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('indexer_events_refused_total{') &&
        l.includes(`type="${type}"`) &&
        l.includes(`reason="${reason}"`),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const snapshot = (account: string, locked: string, block: number, blockTimestamp?: number) =>
  lockedSnapshot(account, locked, { blockNumber: block, blockTimestamp });

test('Indexer timestamps are sane: a block timestamp ahead of our clock (year 9999 included) or contradicting a stored snapshot of its chain is refused, counted, and releases nothing', async () => {
  const account = (await fundedAccount(api, '1000')).address;
  await proveAccount(api.db.manager, api.projectId, account, 'operator');
  const withdrawal = await call(api, 'POST', '/withdrawals', {
    body: { account, chainId: 8453, tokenAddress: BASE_USDC, amount: '600', recipient: account },
  });
  expect(withdrawal.status).toBe(200);
  const [{ nonce, expires }] = await api.db.query(
    "SELECT nonce::text, (response->>'expires')::bigint AS expires FROM withdrawals WHERE account = $1",
    [account.toLowerCase()],
  );
  const before = {
    future: await refusals('balance', 'future-timestamp'),
    order: await refusals('balance', 'timestamp-order'),
  };

  // Year 9999, and an hour ahead: no block is mined in the future. Not applied, not recorded, and the batch's other
  // events still are.
  const futures = [
    snapshot(account, '1000', blockAt(now()), 253402300799),
    snapshot(account, '1000', blockAt(now()), now() + 3600),
  ];
  const other = await fundedAccount(api, '7');
  const future = await ingest(api, [futures[0], snapshot(other.address, '8', 2)]);
  expect(future.status).toBe(200);
  expect(future.json).toEqual({
    received: 2,
    applied: 1,
    duplicates: 0,
    refused: [
      {
        index: 0,
        id: futures[0].id,
        type: 'balance',
        reason: 'future-timestamp',
        message: expect.stringMatching(
          /^blockTimestamp 253402300799 is \d+ s ahead of this server's clock \(at most 300 s allowed\)$/,
        ),
      },
    ],
  });
  expect((await ingest(api, [futures[1]])).json).toMatchObject({
    applied: 0,
    refused: [{ index: 0, id: futures[1].id, reason: 'future-timestamp' }],
  });
  expect(await refusals('balance', 'future-timestamp')).toBe(before.future + 2);
  expect(await api.db.query('SELECT 1 FROM indexer_events WHERE id = ANY($1)', [futures.map((f) => f.id)])).toEqual([]);

  // A lower block than a stored snapshot of the chain with a later timestamp: here one at `expires`, which would free
  // the withdrawal's funds at its end while a claim mined before `expires` may still be reported.
  const stored = now() - 60;
  expect((await ingest(api, [snapshot(other.address, '8', blockAt(stored), stored)])).json).toMatchObject({
    applied: 1,
  });
  const early = snapshot(account, '1000', blockAt(stored) - 10, Number(expires));
  const contradicted = await ingest(api, [early]);
  expect(contradicted.json).toEqual({
    received: 1,
    applied: 0,
    duplicates: 0,
    refused: [
      {
        index: 0,
        id: early.id,
        type: 'balance',
        reason: 'timestamp-order',
        message: expect.stringContaining(
          `blockTimestamp ${expires} of block ${blockAt(stored) - 10} contradicts a stored snapshot of chain 8453`,
        ),
      },
    ],
  });
  expect(await refusals('balance', 'timestamp-order')).toBe(before.order + 1);

  // The hold ends at `expires` (4 s in tests): the refused timestamps were not stored, so nothing is released...
  await waitFor(
    'withdrawal expired',
    async () =>
      (await api.db.query('SELECT status FROM withdrawals WHERE nonce = $1', [nonce]))[0].status === 'EXPIRED',
    30_000,
  );
  expect(await activeReservations(api, nonce)).toBe(1);
  expect(
    (await api.db.query('SELECT block_timestamp FROM lock_balances WHERE account = $1', [account.toLowerCase()]))[0]
      .block_timestamp,
  ).toBeNull();
  // ...until a snapshot of the block at `expires` shows no claim.
  expect((await ingest(api, [snapshot(account, '1000', blockAt(Number(expires)), Number(expires))])).json).toEqual({
    received: 1,
    applied: 1,
    duplicates: 0,
  });
  expect(await activeReservations(api, nonce)).toBe(0);
});

test('Indexer timestamps are sane: each block of a batch is judged against the stored snapshots nearest to it, however many the span of the batch holds; an event sent again is not judged again', async () => {
  // Arbitrum, where nothing else in this file stores a timestamp; block = timestamp, as blockAt has it.
  const base = blockAt(now() - 10_000);
  const at = (block: number, timestamp = block) => ({
    id: eventId(),
    type: 'balance',
    chainId: 42161,
    account: privateKeyToAccount(generatePrivateKey()).address,
    token: ARB_USDC,
    locked: '1',
    blockNumber: String(block),
    blockTimestamp: timestamp,
  });
  expect((await ingest(api, [at(base + 10), at(base + 20), at(base + 30)])).json).toMatchObject({ applied: 3 });
  const order = await refusals('balance', 'timestamp-order');

  // Two stored snapshots inside the batch's span of four blocks: read across the span. Block +15 at the time of +21
  // is later than the stored +20.
  const spanned = [at(base + 12), at(base + 15, base + 21), at(base + 22), at(base + 40)];
  expect((await ingest(api, spanned)).json).toEqual({
    received: 4,
    applied: 3,
    duplicates: 0,
    refused: [
      {
        index: 1,
        id: spanned[1].id,
        type: 'balance',
        reason: 'timestamp-order',
        message: `blockTimestamp ${base + 21} of block ${base + 15} contradicts a stored snapshot of chain 42161 (block ${base + 20} at ${base + 20}): block timestamps never decrease`,
      },
    ],
  });

  // Six stored snapshots inside the span of two blocks: read block by block. Block +45 at the time of +39 is earlier
  // than the stored +40.
  const crowded = [at(base + 1), at(base + 45, base + 39)];
  expect((await ingest(api, crowded)).json).toEqual({
    received: 2,
    applied: 1,
    duplicates: 0,
    refused: [
      {
        index: 1,
        id: crowded[1].id,
        type: 'balance',
        reason: 'timestamp-order',
        message: `blockTimestamp ${base + 39} of block ${base + 45} contradicts a stored snapshot of chain 42161 (block ${base + 40} at ${base + 40}): block timestamps never decrease`,
      },
    ],
  });
  expect(await refusals('balance', 'timestamp-order')).toBe(order + 2);

  // An event sent again is a duplicate, not judged again, though what is stored now contradicts it: its own pair went
  // with a newer snapshot of its account, and block +55 was stored at the time of +49.
  const first = at(base + 50);
  expect((await ingest(api, [first])).json).toMatchObject({ applied: 1 });
  expect((await ingest(api, [{ ...at(base + 60), account: first.account }])).json).toMatchObject({ applied: 1 });
  expect((await ingest(api, [at(base + 55, base + 49)])).json).toMatchObject({ applied: 1 });
  expect((await ingest(api, [first])).json).toEqual({ received: 1, applied: 0, duplicates: 1 });
  expect(await api.db.query('SELECT 1 FROM indexer_events WHERE id = $1', [first.id])).toHaveLength(1);
  expect(await refusals('balance', 'timestamp-order')).toBe(order + 2);
});

async function submitted(account: ReturnType<typeof privateKeyToAccount>) {
  return submitOwnIntent(api, account);
}

const indexed = (events: unknown[]) =>
  call(api, 'POST', '/indexer/events?wait=true', { body: { events }, headers: { 'x-indexer-key': api.indexerKey } });
const intentOf = async (id: string) => (await call(api, 'GET', `/intent-operation/${id}`)).json;

test("attack pass: a fill on another chain than its intent's destination or before its quote, and a claim off its origin chains, are refused, counted and never applied", async () => {
  const id = await submitted(await fundedAccount(api));
  const before = {
    chain: await refusals('fill', 'fill-chain'),
    time: await refusals('fill', 'fill-before-quote'),
    claim: await refusals('claim', 'claim-chain'),
  };
  const wrongChain = fillEvent(id, TX(1), { chainId: 1 });
  const beforeQuote = fillEvent(id, TX(2), { timestamp: 0 });
  const offOrigin = claimEvent(id, TX(3), { chainId: 42161, blockNumber: '9' });
  const res = await indexed([
    wrongChain,
    { id: eventId(), type: 'preconfirmation', chainId: 42161, nonce: id },
    beforeQuote,
    offOrigin,
  ]);
  expect(res.status).toBe(200);
  expect(res.json).toEqual({
    received: 4,
    applied: 1,
    duplicates: 0,
    refused: [
      {
        index: 0,
        id: wrongChain.id,
        type: 'fill',
        reason: 'fill-chain',
        message: `a fill on chain 1, but nonce ${id} fills on chain 42161`,
      },
      {
        index: 2,
        id: beforeQuote.id,
        type: 'fill',
        reason: 'fill-before-quote',
        message: expect.stringMatching(new RegExp(`^fill timestamp 0 is before nonce ${id} was quoted \\(\\d+\\)$`)),
      },
      {
        index: 3,
        id: offOrigin.id,
        type: 'claim',
        reason: 'claim-chain',
        message: `a claim on chain 42161, which is not an origin chain of nonce ${id} (8453)`,
      },
    ],
  });
  expect([
    await refusals('fill', 'fill-chain'),
    await refusals('fill', 'fill-before-quote'),
    await refusals('claim', 'claim-chain'),
  ]).toEqual([before.chain + 1, before.time + 1, before.claim + 1]);
  // The preconfirmation went through (wait=true: delivered); the refused events reached neither the lifecycle nor the ledger.
  await waitFor('PRECONFIRMED', async () => (await intentOf(id)).status === 'PRECONFIRMED', 30_000);
  const intent = await intentOf(id);
  expect(intent).toMatchObject({ status: 'PRECONFIRMED', claims: [{ chainId: 8453, status: 'PENDING' }] });
  expect(intent.fillTimestamp).toBeUndefined();
  expect((await api.db.query('SELECT fill, claims FROM intents WHERE id = $1', [id]))[0]).toEqual({
    fill: null,
    claims: {},
  });
  expect(
    (await api.db.query('SELECT release_after_block FROM reservations WHERE owner_id = $1', [id]))[0]
      .release_after_block,
  ).toBeNull();

  // Sent again, a refused event is judged again (it was not recorded); the real fill then fills the intent.
  expect((await indexed([wrongChain])).json).toMatchObject({
    applied: 0,
    duplicates: 0,
    refused: [{ id: wrongChain.id, reason: 'fill-chain' }],
  });
  const filledAt = now();
  expect((await indexed([fillEvent(id, TX(4), { timestamp: filledAt })])).json).toEqual({
    received: 1,
    applied: 1,
    duplicates: 0,
  });
  await waitFor('FILLED', async () => (await intentOf(id)).status === 'FILLED', 30_000);
  expect(await intentOf(id)).toMatchObject({ fillTimestamp: filledAt, fillTransactionHash: TX(4) });
});

test('A fill stamped beyond the clock skew is refused like other future timestamps', async () => {
  const id = await submitted(await fundedAccount(api));
  const before = {
    fill: await refusals('fill', 'future-timestamp'),
    claim: await refusals('claim', 'future-timestamp'),
  };
  // After the fill deadline, a fill would be recorded and merely not count; a billion seconds ahead, it is no mined block's.
  const farFill = fillEvent(id, TX(1), { timestamp: now() + 1_000_000_000 });
  const farClaim = claimEvent(id, TX(2), { timestamp: now() + 1_000_000_000, blockNumber: '9' });
  const res = await indexed([farFill, farClaim]);
  expect(res.status).toBe(200);
  expect(res.json).toEqual({
    received: 2,
    applied: 0,
    duplicates: 0,
    refused: [
      {
        index: 0,
        id: farFill.id,
        type: 'fill',
        reason: 'future-timestamp',
        message: expect.stringMatching(
          /^timestamp \d+ is \d+ s ahead of this server's clock \(at most 300 s allowed\)$/,
        ),
      },
      { index: 1, id: farClaim.id, type: 'claim', reason: 'future-timestamp', message: expect.any(String) },
    ],
  });
  expect([await refusals('fill', 'future-timestamp'), await refusals('claim', 'future-timestamp')]).toEqual([
    before.fill + 1,
    before.claim + 1,
  ]);
  expect((await api.db.query('SELECT fill, claims FROM intents WHERE id = $1', [id]))[0]).toEqual({
    fill: null,
    claims: {},
  });
  expect(await api.db.query('SELECT 1 FROM indexer_events WHERE id = ANY($1)', [[farFill.id, farClaim.id]])).toEqual(
    [],
  );
});

test('attack pass: two balances of one key and block with different amounts refuse the batch with a 400 naming both; identical duplicates are applied', async () => {
  const account = privateKeyToAccount(generatePrivateKey()).address;
  const [a, b] = [snapshot(account, '5', 7), snapshot(account.toLowerCase(), '6', 7)];
  const unrelated = snapshot(privateKeyToAccount(generatePrivateKey()).address, '1', 7);
  const res = await ingest(api, [a, unrelated, b]);
  expect(res.status).toBe(400);
  const message = `events[0] (id "${a.id}") and events[2] (id "${b.id}") report different locked (lock tag ${api.services.defaultLockTag.toLowerCase()}) balances of chain 8453, account ${account.toLowerCase()}, token ${BASE_USDC.toLowerCase()}, block 7: 5 and 6`;
  expect(res.json).toMatchObject({
    message,
    errors: [
      {
        message,
        context: {
          events: [
            { index: 0, id: a.id },
            { index: 2, id: b.id },
          ],
        },
      },
    ],
  });
  // A refused batch changes nothing, the unrelated event included.
  expect(await api.db.query('SELECT 1 FROM indexer_events WHERE id = ANY($1)', [[a.id, b.id, unrelated.id]])).toEqual(
    [],
  );
  expect(
    await api.db.query('SELECT 1 FROM lock_balances WHERE account = ANY($1)', [
      [account.toLowerCase(), unrelated.account.toLowerCase()],
    ]),
  ).toEqual([]);

  const same = await ingest(api, [a, unrelated, { ...b, locked: '5' }]);
  expect([same.status, same.json]).toEqual([200, { received: 3, applied: 3, duplicates: 0 }]);
  expect(
    (await api.db.query('SELECT amount FROM lock_balances WHERE account = $1', [account.toLowerCase()]))[0].amount,
  ).toBe('5');
});

test('attack pass: in a batch of new accounts, the one account that holds a reservation is still looked at: a refused or older snapshot of it releases nothing, its snapshot at `expires` releases the hold, and the batch sent again (its ids repeated inside it too) changes nothing', async () => {
  const held = (await fundedAccount(api, '1000')).address;
  await proveAccount(api.db.manager, api.projectId, held, 'operator');
  const withdrawal = await call(api, 'POST', '/withdrawals', {
    body: { account: held, chainId: 8453, tokenAddress: BASE_USDC, amount: '600', recipient: held },
  });
  expect(withdrawal.status).toBe(200);
  const [{ nonce, expires }] = await api.db.query(
    "SELECT nonce::text, (response->>'expires')::bigint AS expires FROM withdrawals WHERE account = $1",
    [held.toLowerCase()],
  );
  await waitFor(
    'withdrawal expired',
    async () =>
      (await api.db.query('SELECT status FROM withdrawals WHERE nonce = $1', [nonce]))[0].status === 'EXPIRED',
    30_000,
  );
  // New accounts, each at its own block before `expires` (block = timestamp on Base in tests): none holds anything.
  const newcomers = (from: number) =>
    Array.from({ length: 20 }, (_, i) =>
      snapshot(privateKeyToAccount(generatePrivateKey()).address, '5', from + i, from + i),
    );
  const at = Number(expires);

  // Its snapshot an hour ahead of our clock is refused among applied newcomers: not recorded, nothing released.
  const ahead = snapshot(held, '1000', blockAt(now() + 3600), now() + 3600);
  const first = await ingest(api, [...newcomers(at - 100), ahead]);
  expect(first.json).toMatchObject({ received: 21, applied: 20, refused: [{ index: 20, id: ahead.id }] });
  expect(await activeReservations(api, nonce)).toBe(1);

  // A snapshot before `expires` (all its funds still there) releases nothing either.
  expect((await ingest(api, [...newcomers(at - 60), snapshot(held, '1000', at - 1, at - 1)])).json).toMatchObject({
    applied: 21,
  });
  expect(await activeReservations(api, nonce)).toBe(1);

  // At `expires`, beside twenty new accounts and with one newcomer's id repeated (another amount: the first wins).
  const batch = [...newcomers(at - 30), snapshot(held, '1000', at, at)];
  const repeated = { ...batch[3], locked: '6' };
  expect((await ingest(api, [...batch, repeated])).json).toEqual({ received: 21, applied: 21, duplicates: 0 });
  expect(await activeReservations(api, nonce)).toBe(0);
  expect(
    (await api.db.query('SELECT amount FROM lock_balances WHERE account = $1', [batch[3].account.toLowerCase()]))[0]
      .amount,
  ).toBe('5');

  // The same batch again is all duplicates, and an older snapshot of the held account does not replace the stored one.
  expect((await ingest(api, batch)).json).toEqual({ received: 21, applied: 0, duplicates: 21 });
  expect((await ingest(api, [snapshot(held, '1', at - 2, at - 2)])).json).toMatchObject({ applied: 1 });
  expect(
    (await api.db.query('SELECT amount, block_number FROM lock_balances WHERE account = $1', [held.toLowerCase()]))[0],
  ).toEqual({ amount: '1000', block_number: String(at) });
});
