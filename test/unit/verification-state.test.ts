import { applyUpdate, type VerificationState } from '../../workflows/verification-state';

const start: VerificationState = { status: 'needs_input', lastAt: 0, seen: [] };

test('a callback moves the status once; its repeat changes nothing', () => {
  const a = applyUpdate(start, { eventId: 'e1', state: 'in_review', occurredAt: 10 });
  expect(a).toEqual({ state: { status: 'in_review', lastAt: 10, seen: ['e1'] }, changed: true });
  expect(applyUpdate(a.state, { eventId: 'e1', state: 'in_review', occurredAt: 10 }).changed).toBe(false);
});

test('out of order: an older callback arriving after a newer one is ignored', () => {
  const approved = applyUpdate(start, { eventId: 'e2', state: 'approved', occurredAt: 20 }).state;
  const late = applyUpdate(approved, { eventId: 'e1', state: 'in_review', occurredAt: 10 });
  expect(late.changed).toBe(false);
  expect(late.state.status).toBe('approved');
  const reviewed = applyUpdate(start, { eventId: 'e3', state: 'in_review', occurredAt: 30 }).state;
  expect(applyUpdate(reviewed, { eventId: 'e4', state: 'needs_input', occurredAt: 25 }).changed).toBe(false);
});

test('a decision is final', () => {
  const declined = applyUpdate(start, { eventId: 'e1', state: 'declined', occurredAt: 10 }).state;
  expect(applyUpdate(declined, { eventId: 'e2', state: 'approved', occurredAt: 20 })).toEqual({
    state: { ...declined, seen: ['e1', 'e2'] },
    changed: false,
  });
});
