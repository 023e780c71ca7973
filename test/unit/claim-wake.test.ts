import { waitingAfterClaim, wakes } from '../../src/webhooks/claims';

describe('which finishing attempts wake the claim loop', () => {
  test('after a claim that left an endpoint at its share, only that endpoint\'s finishing attempts wake it', () => {
    const waiting = waitingAfterClaim(false, ['slow']);
    expect(wakes(waiting, 'slow')).toBe(true);
    expect(wakes(waiting, 'fast')).toBe(false);
  });

  test('when the total cut the claim short, any finishing attempt wakes it', () => {
    const waiting = waitingAfterClaim(true, ['slow']);
    expect(wakes(waiting, 'fast')).toBe(true);
    expect(wakes(waiting, 'slow')).toBe(true);
  });

  test('with nothing left at a cap, no finishing attempt wakes it (the next commit\'s notification or the poll does)', () => {
    expect(wakes(waitingAfterClaim(false, []), 'fast')).toBe(false);
  });
});
