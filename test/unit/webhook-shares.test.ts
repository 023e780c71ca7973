import fc from 'fast-check';
import { fairShares, type ProjectLoad } from '../../src/webhooks/shares';
import { AttemptSlots } from '../../src/webhooks/slots';
import { leaseLoop, settled } from '../support/lease-table';

const loadsArb = fc
  .dictionary(
    fc.string({ minLength: 1, maxLength: 4 }),
    fc.record({ inFlight: fc.nat(300), waiting: fc.boolean(), reserve: fc.nat(300) }),
    { maxKeys: 12 },
  )
  .map((d) => new Map<string, ProjectLoad>(Object.entries(d)));

/** What a lease lets each project take now: up to its share, counting what it holds. */
const allowance = (shares: Map<string, number>, loads: Map<string, ProjectLoad>, p: string) =>
  Math.max(0, shares.get(p)! - loads.get(p)!.inFlight);

describe('every tenant gets its share of webhook delivery', () => {
  test('every tenant gets its share: with projects waiting, none may take more than the share of one that waits; alone it gets every slot', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), loadsArb, (total, loads) => {
        const shares = fairShares(total, loads);
        const waiting = [...loads].filter(([, l]) => l.waiting).map(([p]) => p);
        for (const [p, l] of loads) {
          const takes = allowance(shares, loads, p);
          // No project takes more than an equal split among those that wait, nor than the share of any that waits.
          if (takes > 0 && waiting.length)
            expect(l.inFlight + takes).toBeLessThanOrEqual(Math.max(1, Math.ceil(total / waiting.length)));
          for (const q of waiting) if (takes > 0) expect(l.inFlight + takes).toBeLessThanOrEqual(shares.get(q)!);
          // One that does not wait is given no more than it holds or lately held.
          if (!l.waiting) expect(shares.get(p)!).toBeLessThanOrEqual(Math.max(l.inFlight, l.reserve));
        }
        if (waiting.length) {
          // Nothing is kept from the projects that wait: the shares cover every slot, and no more than rounding adds.
          const sum = [...shares.values()].reduce((a, b) => a + b, 0);
          expect(sum).toBeGreaterThanOrEqual(total);
          expect(sum).toBeLessThanOrEqual(total + loads.size);
          // A project that waits with nothing in flight may always take a slot.
          for (const q of waiting)
            if (loads.get(q)!.inFlight === 0) expect(allowance(shares, loads, q)).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );

    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.nat(400), fc.nat(400), (total, inFlight, reserve) => {
        // Alone: every slot, whatever it held or lately held.
        expect(fairShares(total, new Map([['p', { inFlight, waiting: true, reserve }]])).get('p')).toBe(total);
      }),
    );
  });

  test('every tenant gets its share: a project keeps the slots it lately used for the reserve window, then they go to whoever waits', () => {
    let now = 0;
    const slots = new AttemptSlots(10, 10, 60_000, () => now);
    for (let i = 0; i < 3; i++) expect(slots.tryTake('steady-endpoint', 'steady')).toBe(true);
    for (let i = 0; i < 3; i++) slots.give('steady-endpoint', 'steady');
    slots.look(['busy']);
    let taken = 0;
    while (slots.tryTake('busy-endpoint', 'busy')) taken++;
    expect(taken).toBe(7); // three kept for the steady tenant, which has nothing in flight

    now += 60_001;
    while (slots.tryTake('busy-endpoint', 'busy')) taken++;
    expect(taken).toBe(10);
  });

  test('every tenant gets its share: a retry attempt of a project past its share waits while another project waits', () => {
    const slots = new AttemptSlots(4, 4, 60_000, () => 0);
    slots.look(['greedy']);
    for (let i = 0; i < 4; i++) expect(slots.tryTake('greedy-endpoint', 'greedy')).toBe(true); // alone: every slot
    slots.give('greedy-endpoint', 'greedy');
    slots.look(['greedy', 'tenant']); // the lease loop found the tenant's deliveries due
    expect(slots.tryTake('greedy-endpoint', 'greedy')).toBe(false); // the retry activity's take: 3 held, a share of 2
    expect(slots.tryTake('tenant-endpoint', 'tenant')).toBe(true);
  });

  test('every tenant gets its share: a project with seven slow endpoints holding every slot leaves the next ones freed to another tenant, ahead of its older backlog', async () => {
    const loop = leaseLoop({ total: 14, perEndpoint: 4 }); // seven endpoints at their share would be 28
    try {
      for (let e = 1; e <= 7; e++) loop.table.emit('greedy', `slow-${e}`, 10);
      await loop.start();
      expect(loop.open('greedy')).toHaveLength(14); // alone: every slot

      loop.table.emit('tenant', 'tenant-endpoint', 3);
      await loop.answer(loop.open('greedy')[0]);
      expect(loop.open('tenant')).toHaveLength(1); // the slot freed went to the tenant, not to the older backlog
      for (let i = 0; i < 2; i++) await loop.answer(loop.open('greedy')[0]);
      expect(loop.open('tenant')).toHaveLength(3);
      expect(loop.open('greedy')).toHaveLength(11);

      // The tenant's slots are its own while it holds them, and stay free for its next event once its receiver has
      // answered (its reserve): the backlog does not take them back.
      for (let i = 0; i < 3; i++) await loop.answer(loop.open('greedy')[0]);
      expect(loop.open('greedy')).toHaveLength(11);
      for (const id of loop.open('tenant')) await loop.answer(id);
      expect(loop.open('greedy')).toHaveLength(11);
      loop.table.emit('tenant', 'tenant-endpoint');
      await settled();
      expect(loop.open('tenant')).toHaveLength(1); // at once: no attempt of the greedy project had to end

      // Once the reserve lapses, the greedy project gets every slot again.
      await loop.answer(loop.open('tenant')[0]);
      loop.clock.now += 60_001;
      await loop.answer(loop.open('greedy')[0]);
      expect(loop.open('greedy')).toHaveLength(14);
    } finally {
      await loop.stop();
    }
  });
});
