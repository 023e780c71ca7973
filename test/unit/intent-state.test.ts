import fc from 'fast-check';
import {
  applyEvent,
  type IntentEvent,
  IntentState,
  type IntentStatus,
  isTerminal,
  movesForward,
  recordEvent,
  adoptRecord,
} from '../../workflows/intent-state';

const start: IntentState = { status: 'PENDING', originChainIds: [1, 8453], claims: {} };
const tx = (chainId: number, n: number) => ({ chainId, transactionHash: `0x${n}`, timestamp: n });

test('the happy path: preconfirmed, filled, claimed per origin chain, completed', () => {
  let s = applyEvent(start, { type: 'preconfirmation', chainId: 42161 });
  expect(s.status).toBe('PRECONFIRMED');
  s = applyEvent(s, { type: 'fill', ...tx(42161, 1) });
  expect(s.status).toBe('FILLED');
  s = applyEvent(s, { type: 'claim', ...tx(1, 2) });
  expect(s.status).toBe('CLAIMED');
  s = applyEvent(s, { type: 'claim', ...tx(8453, 3) });
  expect(s.status).toBe('COMPLETED');
});

test('claims before the fill are kept; duplicates and foreign chains change nothing; first fill wins', () => {
  let s = applyEvent(start, { type: 'claim', ...tx(1, 2) });
  s = applyEvent(s, { type: 'claim', ...tx(1, 99) });
  s = applyEvent(s, { type: 'claim', ...tx(10, 5) });
  expect(s.status).toBe('PENDING');
  expect(Object.keys(s.claims)).toEqual(['1']);
  expect(s.claims['1'].transactionHash).toBe('0x2');
  s = applyEvent(s, { type: 'claim', ...tx(8453, 3) });
  s = applyEvent(s, { type: 'fill', ...tx(42161, 7) });
  expect(s.status).toBe('COMPLETED');
  expect(applyEvent({ ...s, status: 'FILLED' }, { type: 'fill', ...tx(42161, 8) }).fill!.transactionHash).toBe('0x7');
});

test('status never moves backwards; failure only before a fill; terminal states are final', () => {
  const filled = applyEvent(start, { type: 'fill', ...tx(42161, 1) });
  expect(applyEvent(filled, { type: 'preconfirmation', chainId: 1 }).status).toBe('FILLED');
  expect(applyEvent(filled, { type: 'failure', chainId: 1, reason: 'x' }).status).toBe('FILLED');
  const failed = applyEvent(start, { type: 'failure', chainId: 1, reason: 'x' });
  expect(failed.status).toBe('FAILED');
  expect(applyEvent(failed, { type: 'preconfirmation', chainId: 1 })).toBe(failed);
  const expired: IntentState = { ...start, status: 'EXPIRED' };
  expect(applyEvent(expired, { type: 'fill', ...tx(42161, 1) })).toBe(expired);
});

test('21.9 a fill after a failure is what the chain says: FILLED, then claimed and COMPLETED; a late failure changes nothing', () => {
  const failed = applyEvent({ ...start, fillDeadline: 100 }, { type: 'failure', chainId: 1, reason: 'x' });
  expect(applyEvent(failed, { type: 'fill', ...tx(42161, 101) })).toBe(failed); // past the deadline: the arbiter pays nothing
  let s = applyEvent(failed, { type: 'fill', ...tx(42161, 7) });
  expect(s.status).toBe('FILLED');
  expect(s.fill!.transactionHash).toBe('0x7');
  expect(applyEvent(s, { type: 'failure', chainId: 1, reason: 'again' })).toBe(s);
  s = applyEvent(s, { type: 'claim', ...tx(1, 8) });
  expect(s.status).toBe('CLAIMED');
  expect(applyEvent(s, { type: 'claim', ...tx(8453, 9) }).status).toBe('COMPLETED');
  // Claims recorded while FAILED count when the fill comes.
  const claimedWhileFailed: IntentState = { ...failed, claims: { 1: tx(1, 2), 8453: tx(8453, 3) } };
  expect(applyEvent(claimedWhileFailed, { type: 'fill', ...tx(42161, 7) }).status).toBe('COMPLETED');
});

test('an event that changes nothing returns the same state (no transition to persist)', () => {
  const claimed = applyEvent(start, { type: 'claim', ...tx(1, 2) });
  expect(applyEvent(claimed, { type: 'claim', ...tx(1, 2) })).toBe(claimed);
  expect(applyEvent(claimed, { type: 'claim', ...tx(1, 9) })).toBe(claimed);
  const filled = applyEvent(claimed, { type: 'fill', ...tx(42161, 1) });
  expect(applyEvent(filled, { type: 'fill', ...tx(42161, 1) })).toBe(filled);
  expect(applyEvent(filled, { type: 'preconfirmation', chainId: 1 })).toBe(filled);
});

test('a fill is judged by its on-chain timestamp: one after the fill deadline does not count', () => {
  const s = { ...start, fillDeadline: 100 };
  expect(applyEvent(s, { type: 'fill', ...tx(42161, 101) })).toBe(s);
  expect(applyEvent(s, { type: 'fill', ...tx(42161, 100) }).status).toBe('FILLED');
});

const STATUSES: IntentStatus[] = ['PENDING', 'PRECONFIRMED', 'FILLED', 'CLAIMED', 'COMPLETED', 'EXPIRED', 'FAILED'];
const event = fc.oneof(
  fc.constantFrom(1, 8453, 42161).map((chainId): IntentEvent => ({ type: 'preconfirmation', chainId })),
  fc
    .record({ chainId: fc.constantFrom(42161), n: fc.integer({ min: 1, max: 200 }) })
    .map(({ chainId, n }): IntentEvent => ({ type: 'fill', ...tx(chainId, n) })),
  fc
    .record({ chainId: fc.constantFrom(1, 8453, 10), n: fc.integer({ min: 1, max: 200 }) })
    .map(({ chainId, n }): IntentEvent => ({ type: 'claim', ...tx(chainId, n) })),
  fc.constantFrom(1, 8453).map((chainId): IntentEvent => ({ type: 'failure', chainId, reason: 'x' })),
);

test('state never goes backwards: every status change the lifecycle makes is a forward move, and no move leads back', () => {
  fc.assert(
    fc.property(fc.array(event, { maxLength: 12 }), (events) => {
      let s: IntentState = { ...start, fillDeadline: 100 };
      for (const e of events) {
        const next = applyEvent(s, e);
        if (next.status !== s.status)
          expect([s.status, next.status, movesForward(s.status, next.status)]).toEqual([s.status, next.status, true]);
        s = next;
      }
      // The lifecycle's own move at the deadline: EXPIRED, when no fill came.
      if (!s.fill && !isTerminal(s.status)) expect(movesForward(s.status, 'EXPIRED')).toBe(true);
    }),
  );
  for (const a of STATUSES) {
    expect(movesForward(a, a)).toBe(false);
    for (const b of STATUSES) if (movesForward(a, b)) expect([a, b, movesForward(b, a)]).toEqual([a, b, false]);
  }
  expect(movesForward('COMPLETED', 'PENDING')).toBe(false);
  expect(movesForward('EXPIRED', 'FILLED')).toBe(false);
  expect(STATUSES.filter((b) => movesForward('COMPLETED', b) || movesForward('EXPIRED', b))).toEqual([]);
});

test('a claim after EXPIRED or FAILED is kept beside the status (first per origin chain); other events change nothing', () => {
  const expired: IntentState = { ...start, status: 'EXPIRED' };
  const kept = recordEvent(expired, { type: 'claim', ...tx(1, 2) });
  expect(kept).toMatchObject({ status: 'EXPIRED', claims: { '1': tx(1, 2) } });
  expect(recordEvent(kept, { type: 'claim', ...tx(1, 9) })).toBe(kept);
  expect(recordEvent(kept, { type: 'claim', ...tx(10, 9) })).toBe(kept);
  expect(recordEvent(kept, { type: 'fill', ...tx(42161, 1) })).toBe(kept);
  const failed: IntentState = { ...start, status: 'FAILED' };
  expect(recordEvent(failed, { type: 'claim', ...tx(8453, 3) })).toMatchObject({
    status: 'FAILED',
    claims: { '8453': tx(8453, 3) },
  });
  expect(recordEvent(failed, { type: 'fill', ...tx(42161, 1) }).status).toBe('FILLED');
});

test('the indexer route and the lifecycle record the same events in different orders: they end at one status, and no write of the lifecycle is a step back', () => {
  const batchAndSignals = fc
    .array(event, { maxLength: 10 })
    .chain((events) =>
      fc.tuple(
        fc.constant(events),
        fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }),
      ),
    );
  fc.assert(
    fc.property(batchAndSignals, ([ingested, signalled]) => {
      const fold = (events: IntentEvent[]) =>
        events.reduce((s, e) => recordEvent(s, e), { ...start, fillDeadline: 100 } as IntentState);
      const stored = fold(ingested);
      const lifecycle = fold(signalled);
      expect(lifecycle.status).toBe(stored.status);
      // Each status the lifecycle writes on the way is the stored one (kept) or one the stored status is past
      // (refused): the store never moves back.
      let s: IntentState = { ...start, fillDeadline: 100 };
      for (const e of signalled) {
        s = recordEvent(s, e);
        expect(s.status === stored.status || movesForward(s.status, stored.status)).toBe(true);
      }
    }),
  );
});

test('a lifecycle that reads its record where it was not signalled ends where the record does, and never steps back', () => {
  // The indexer route records every event; the lifecycle was signalled some of them (before its start delay ended,
  // none) and reads the record at its wakes: whatever it had, after a read it is at the record's status.
  const recordedAndSignalled = fc
    .array(event, { maxLength: 10 })
    .chain((events) => fc.tuple(fc.constant(events), fc.subarray(events), fc.subarray(events)));
  fc.assert(
    fc.property(recordedAndSignalled, ([recorded, before, after]) => {
      const fold = (from: IntentState, events: IntentEvent[]) => events.reduce((s, e) => recordEvent(s, e), from);
      const initial: IntentState = { ...start, fillDeadline: 100 };
      const record = fold(initial, recorded);
      const read = adoptRecord(fold(initial, before), record);
      expect(read.status).toBe(record.status);
      expect(read.fill?.transactionHash).toBe(
        record.fill?.transactionHash ?? fold(initial, before).fill?.transactionHash,
      );
      // A signal taken after the read never moves it behind the record.
      const later = fold(read, after);
      expect(later.status === record.status || movesForward(record.status, later.status)).toBe(true);
      // Read again: nothing new, the same object.
      expect(adoptRecord(read, record)).toBe(read);
    }),
  );
});

test('a record behind the lifecycle (a stale one) changes nothing', () => {
  const filled = applyEvent(start, { type: 'fill', ...tx(42161, 1) });
  expect(adoptRecord(filled, start)).toBe(filled);
  const completed = adoptRecord(start, {
    ...filled,
    status: 'COMPLETED',
    claims: { '1': tx(1, 2), '8453': tx(8453, 3) },
  });
  expect(completed).toMatchObject({ status: 'COMPLETED', fill: tx(42161, 1) });
});
