import {
  batchConflict,
  contradicts,
  futureTimestamp,
  lifecycleRefusal,
  nearestTimes,
  storedTimeContradiction,
} from '../../src/ingestion/consistency';
import type { BalanceEvent, LifecycleEvent } from '../../src/ingestion/types';

const LOCK_TAG = '0x' + '11'.repeat(12);
const ACCOUNT = '0x' + 'aa'.repeat(20);
const TOKEN = '0x' + 'bb'.repeat(20);
const balance = (id: string, fields: Partial<BalanceEvent>): BalanceEvent => ({
  id,
  type: 'balance',
  chainId: 8453,
  account: ACCOUNT,
  token: TOKEN,
  blockNumber: '10',
  ...fields,
});
const at = (block: number, timestamp: number) => ({ block: BigInt(block), timestamp });

describe('Indexer timestamps are sane', () => {
  test('Indexer timestamps are sane: one block has one timestamp, and timestamps never decrease as blocks increase', () => {
    expect(contradicts(at(10, 100), at(11, 100))).toBe(false); // blocks may share a timestamp
    expect(contradicts(at(10, 100), at(11, 101))).toBe(false);
    expect(contradicts(at(11, 101), at(10, 100))).toBe(false);
    expect(contradicts(at(10, 100), at(10, 100))).toBe(false);
    expect(contradicts(at(10, 101), at(11, 100))).toBe(true); // a lower block with a higher timestamp
    expect(contradicts(at(11, 100), at(10, 101))).toBe(true); // a higher block with a lower timestamp
    expect(contradicts(at(10, 100), at(10, 101))).toBe(true);
  });

  test('Indexer timestamps are sane: a block timestamp more than the skew ahead of our clock is refused (year 9999 included)', () => {
    const now = 1_800_000_000;
    expect(futureTimestamp(balance('a', { unlocked: '1', blockTimestamp: now + 300 }), now, 300)).toBeUndefined();
    expect(futureTimestamp(balance('a', { unlocked: '1', blockTimestamp: now - 86_400 }), now, 300)).toBeUndefined();
    expect(futureTimestamp(balance('b', { unlocked: '1', blockTimestamp: now + 301 }), now, 300)).toMatchObject({
      id: 'b',
      reason: 'future-timestamp',
      message: expect.stringContaining('301 s ahead'),
    });
    expect(futureTimestamp(balance('c', { unlocked: '1', blockTimestamp: 253402300799 }), now, 300)?.reason).toBe(
      'future-timestamp',
    );
  });

  test('A fill stamped beyond the clock skew is refused like other future timestamps', () => {
    const now = 1_800_000_000;
    const mined = (type: 'fill' | 'claim', id: string, timestamp: number): LifecycleEvent => ({
      id,
      type,
      chainId: 42161,
      nonce: '7',
      transactionHash: '0x01',
      timestamp,
    });
    expect(futureTimestamp(mined('fill', 'f', now + 300), now, 300)).toBeUndefined();
    expect(futureTimestamp(mined('fill', 'f', now - 86_400), now, 300)).toBeUndefined();
    expect(futureTimestamp(mined('fill', 'g', now + 1_000_000_000), now, 300)).toEqual({
      id: 'g',
      type: 'fill',
      reason: 'future-timestamp',
      message: "timestamp 2800000000 is 1000000000 s ahead of this server's clock (at most 300 s allowed)",
    });
    expect(futureTimestamp(mined('claim', 'h', now + 301), now, 300)).toMatchObject({
      type: 'claim',
      reason: 'future-timestamp',
    });
  });

  test('Indexer timestamps are sane: a block is judged against the stored pairs nearest to it, below and above', () => {
    const stored = [at(10, 100), at(20, 200), at(30, 300)];
    expect(nearestTimes(stored, 15n)).toEqual([at(10, 100), at(20, 200)]);
    expect(nearestTimes(stored, 20n)).toEqual([at(20, 200), at(20, 200)]);
    expect(nearestTimes(stored, 5n)).toEqual([at(10, 100)]);
    expect(nearestTimes(stored, 35n)).toEqual([at(30, 300)]);
    expect(nearestTimes(stored, 30n)).toEqual([at(30, 300), at(30, 300)]);
    expect(nearestTimes([], 1n)).toEqual([]);
    // Many rows of one pair (accounts snapshotted at one block) count as one.
    expect(nearestTimes([at(10, 100), at(10, 100), at(10, 100), at(40, 400)], 11n)).toEqual([at(10, 100), at(40, 400)]);
  });

  test('Indexer timestamps are sane: a timestamp is refused when a stored snapshot of the chain contradicts it', () => {
    const e = balance('e', { unlocked: '1', blockNumber: '20', blockTimestamp: 2000 });
    expect(storedTimeContradiction(e, [at(19, 1990), at(21, 2010), at(20, 2000)])).toBeUndefined();
    expect(storedTimeContradiction(e, [])).toBeUndefined();
    expect(storedTimeContradiction(e, [at(19, 2001)])).toMatchObject({
      id: 'e',
      reason: 'timestamp-order',
      message: expect.stringContaining('block 19 at 2001'),
    });
    expect(storedTimeContradiction(e, [at(30, 1999)])?.reason).toBe('timestamp-order');
    expect(storedTimeContradiction(e, [at(20, 2001)])?.reason).toBe('timestamp-order');
  });

  test('Indexer timestamps are sane: timestamps of one chain in one batch that contradict each other refuse the batch, naming both', () => {
    const events = [
      balance('x', { unlocked: '1', blockNumber: '12', blockTimestamp: 1200 }),
      balance('y', { unlocked: '1', blockNumber: '10', blockTimestamp: 1000, account: '0x' + 'cc'.repeat(20) }),
      balance('z', { unlocked: '1', blockNumber: '11', blockTimestamp: 1300, account: '0x' + 'dd'.repeat(20) }),
    ];
    expect(batchConflict(events, LOCK_TAG)).toMatchObject({
      events: [
        { index: 2, id: 'z' },
        { index: 0, id: 'x' },
      ],
      message: expect.stringContaining('block 11 at 1300, block 12 at 1200'),
    });
    // Another chain's clock is its own; one block reported twice with one timestamp is fine.
    expect(
      batchConflict([events[0], { ...events[2], chainId: 42161 }, { ...events[0], id: 'x2' }], LOCK_TAG),
    ).toBeUndefined();
    expect(
      batchConflict([events[0], { ...events[0], id: 'x3', blockTimestamp: 1201 }], LOCK_TAG)?.events.map((e) => e.id),
    ).toEqual(['x', 'x3']);
  });
});

describe('attack pass: conflicting balances', () => {
  test('attack pass: two balances of one key and block with different amounts refuse the batch, naming both events', () => {
    const conflict = batchConflict(
      [
        balance('p', { unlocked: '5', locked: '7' }),
        { id: 'price', type: 'price', symbol: 'ETH', usd: 3000 },
        balance('q', { unlocked: '6', account: ACCOUNT.toUpperCase().replace('0X', '0x') }),
      ],
      LOCK_TAG,
    );
    expect(conflict?.events).toEqual([
      { index: 0, id: 'p' },
      { index: 2, id: 'q' },
    ]);
    expect(conflict?.message).toBe(
      `events[0] (id "p") and events[2] (id "q") report different unlocked balances of chain 8453, account ${ACCOUNT}, token ${TOKEN}, block 10: 5 and 6`,
    );
  });

  test('attack pass: identical duplicates, other blocks, other lock tags, the other balance kind and repeated ids do not conflict', () => {
    const p = balance('p', { unlocked: '5', locked: '7' });
    expect(
      batchConflict([p, balance('p2', { unlocked: '5' }), balance('p3', { locked: '7', lockTag: LOCK_TAG })], LOCK_TAG),
    ).toBeUndefined();
    expect(batchConflict([p, balance('r', { unlocked: '6', blockNumber: '11' })], LOCK_TAG)).toBeUndefined();
    expect(
      batchConflict([p, balance('s', { locked: '8', lockTag: '0x' + '22'.repeat(12) })], LOCK_TAG),
    ).toBeUndefined();
    expect(batchConflict([p, balance('p', { unlocked: '6' })], LOCK_TAG)).toBeUndefined(); // the first version of an id wins
    expect(batchConflict([p, balance('t', { locked: '8' })], LOCK_TAG)?.message).toContain(
      `locked (lock tag ${LOCK_TAG})`,
    );
  });
});

describe('attack pass: fills and claims match their intent', () => {
  const USDC = '0x00000000000000000000000000000000000000a1';
  const WETH = '0x00000000000000000000000000000000000000b2';
  const RECIPIENT = '0x00000000000000000000000000000000000000cc';
  const route = {
    destinationChainId: 42161,
    originChainIds: [8453, 10],
    quotedAt: 1_800_000_000,
    recipient: RECIPIENT,
    tokenOut: [
      { token: USDC, amount: 5_000_000n },
      { token: WETH, amount: 7n },
    ],
  };
  const event = (fields: Partial<LifecycleEvent>): LifecycleEvent => ({
    id: 'f',
    type: 'fill',
    chainId: 42161,
    nonce: '7',
    transactionHash: '0x01',
    timestamp: 1_800_000_050,
    ...fields,
  });

  test("attack pass: a fill must name its intent's destination chain and a time after its quote", () => {
    expect(lifecycleRefusal(event({}), route, 300)).toBeUndefined();
    expect(lifecycleRefusal(event({ timestamp: 1_800_000_000 - 300 }), route, 300)).toBeUndefined(); // the chain's clock may lag ours
    expect(lifecycleRefusal(event({ chainId: 1 }), route, 300)).toMatchObject({
      reason: 'fill-chain',
      message: 'a fill on chain 1, but nonce 7 fills on chain 42161',
    });
    expect(lifecycleRefusal(event({ timestamp: 0 }), route, 300)).toMatchObject({
      reason: 'fill-before-quote',
      message: 'fill timestamp 0 is before nonce 7 was quoted (1800000000)',
    });
    expect(lifecycleRefusal(event({ timestamp: 1_800_000_000 - 301 }), route, 300)?.reason).toBe('fill-before-quote');
  });

  test("a fill proves payment: it pays the mandate's recipient at least each tokenOut", () => {
    const pays = (recipient: string, tokens: [string, bigint][]) =>
      event({ recipient, tokens: tokens.map(([token, amount]) => ({ token, amount: amount.toString() })) });
    const full: [string, bigint][] = [
      [USDC, 5_000_000n],
      [WETH, 7n],
    ];
    expect(lifecycleRefusal(pays(RECIPIENT, full), route, 300)).toBeUndefined();
    // Addresses in any case; more than asked; one token in several entries.
    expect(
      lifecycleRefusal(
        pays(RECIPIENT.toUpperCase().replace('0X', '0x'), [
          [USDC, 6_000_000n],
          [WETH, 3n],
          [WETH, 4n],
        ]),
        route,
        300,
      ),
    ).toBeUndefined();
    // The attack: 1 unit to the filler's own address.
    expect(
      lifecycleRefusal(pays('0x00000000000000000000000000000000000000dd', [[USDC, 1n]]), route, 300),
    ).toMatchObject({
      reason: 'fill-recipient',
      message: `the fill paid 0x00000000000000000000000000000000000000dd, but nonce 7 pays ${RECIPIENT}`,
    });
    expect(
      lifecycleRefusal(
        pays(RECIPIENT, [
          [USDC, 4_999_999n],
          [WETH, 7n],
        ]),
        route,
        300,
      ),
    ).toMatchObject({
      reason: 'fill-amount',
      message: `the fill paid 4999999 of token ${USDC}, but nonce 7 asks at least 5000000`,
    });
    // Every tokenOut: the first alone is short of the mandate.
    expect(lifecycleRefusal(pays(RECIPIENT, [full[0]]), route, 300)?.reason).toBe('fill-amount');
    expect(lifecycleRefusal(pays(RECIPIENT, []), route, 300)?.reason).toBe('fill-amount');
    // A mandate naming one token twice asks for both amounts.
    const twice = { ...route, tokenOut: [route.tokenOut[0], route.tokenOut[0]] };
    expect(lifecycleRefusal(pays(RECIPIENT, [[USDC, 5_000_000n]]), twice, 300)?.reason).toBe('fill-amount');
    expect(lifecycleRefusal(pays(RECIPIENT, [[USDC, 10_000_000n]]), twice, 300)).toBeUndefined();
    // Without what it paid, an indexer's fill is taken at its word (docs/indexer.md).
    expect(lifecycleRefusal(event({}), route, 300)).toBeUndefined();
    expect(lifecycleRefusal(event({ recipient: RECIPIENT }), route, 300)).toBeUndefined();
  });

  test('attack pass: a claim must name one of its origin chains', () => {
    expect(lifecycleRefusal(event({ type: 'claim', chainId: 10 }), route, 300)).toBeUndefined();
    expect(lifecycleRefusal(event({ type: 'claim', chainId: 42161 }), route, 300)).toMatchObject({
      reason: 'claim-chain',
      message: 'a claim on chain 42161, which is not an origin chain of nonce 7 (8453, 10)',
    });
    // Only fills and claims are judged against the quote.
    expect(lifecycleRefusal({ id: 'p', type: 'preconfirmation', chainId: 1, nonce: '7' }, route, 300)).toBeUndefined();
  });
});
