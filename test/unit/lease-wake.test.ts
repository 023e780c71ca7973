import { leaseLoop, settled } from '../support/lease-table';

/**
 * The lease loop (src/webhooks/lease-loop.ts) driven for real over an in-memory table whose receivers answer when the
 * test says: which finishing attempts make it lease again. It never polls here, so every look it takes was woken.
 */
describe('which finishing attempts wake the lease loop', () => {
  let loop: ReturnType<typeof leaseLoop>;
  afterEach(() => loop.stop());

  test("after a lease that left an endpoint at its share, only that endpoint's finishing attempts wake it", async () => {
    loop = leaseLoop({ total: 10, perEndpoint: 2 });
    loop.table.emit('p-slow', 'slow', 5);
    loop.table.emit('p-fast', 'fast');
    await loop.start();
    expect(loop.table.looks).toBe(1);
    expect(loop.open('p-slow')).toHaveLength(2); // the slow endpoint at its share, 3 of its deliveries still due

    await loop.answer(loop.open('p-fast')[0]);
    expect(loop.table.looks).toBe(1); // nothing due was waiting for that slot

    await loop.answer(loop.open('p-slow')[0]);
    expect(loop.table.looks).toBe(2);
    expect(loop.table.leases.at(-1)!.took.map((c) => c.endpointId)).toEqual(['slow']);
  });

  test('when the total cut the lease short, any finishing attempt wakes it', async () => {
    loop = leaseLoop({ total: 3, perEndpoint: 10 });
    loop.table.emit('p-slow', 'slow', 5);
    loop.table.emit('p-fast', 'fast');
    await loop.start();
    expect(loop.slots.inFlight).toBe(3);
    const looks = loop.table.looks;

    await loop.answer(loop.open('p-fast')[0]);
    expect(loop.table.looks).toBe(looks + 1);
  });

  test("after a lease that left a project at its share, only that project's finishing attempts wake it", async () => {
    loop = leaseLoop({ total: 4, perEndpoint: 4 });
    loop.table.emit('p-busy', 'busy-1', 5);
    loop.table.emit('p-busy', 'busy-2', 5);
    loop.table.emit('p-other', 'other');
    await loop.start();
    expect(loop.table.looks).toBe(1);
    expect(loop.open('p-busy')).toHaveLength(2); // two projects wait: two slots each, no endpoint at its share

    await loop.answer(loop.open('p-other')[0]);
    expect(loop.table.looks).toBe(1);

    await loop.answer(loop.open('p-busy')[0]);
    expect(loop.table.looks).toBe(2);
    expect(loop.open('p-busy')).toHaveLength(3); // the other project keeps the one slot it used lately (its reserve)
  });

  test("with nothing left at a cap, no finishing attempt wakes it (the next commit's notification or the poll does)", async () => {
    loop = leaseLoop({ total: 10, perEndpoint: 2 });
    loop.table.emit('p-fast', 'fast');
    await loop.start();
    await loop.answer(loop.open('p-fast')[0]);
    await settled();
    expect(loop.table.looks).toBe(1);

    loop.table.emit('p-fast', 'fast'); // a commit's notification
    await settled();
    expect(loop.table.looks).toBe(2);
  });
});
