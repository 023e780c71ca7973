import type { ProviderState, ProviderUpdate } from './contracts/verification';

/** What a verification's lifecycle knows: its status, the time of the newest callback applied, and the callbacks seen. */
export interface VerificationState {
  status: ProviderState;
  lastAt: number;
  seen: string[];
}

export const isFinal = (s: ProviderState) => s === 'approved' || s === 'declined';

/**
 * Applies a provider callback. Callbacks are retried and reordered by providers, so: a callback seen before changes
 * nothing; one older than the newest applied is stale; a decision (approved, declined) is final.
 */
export function applyUpdate(s: VerificationState, u: ProviderUpdate): { state: VerificationState; changed: boolean } {
  if (s.seen.includes(u.eventId)) return { state: s, changed: false };
  const seen = [...s.seen, u.eventId];
  if (isFinal(s.status) || u.occurredAt < s.lastAt || u.state === s.status)
    return { state: { ...s, seen }, changed: false };
  return { state: { status: u.state, lastAt: u.occurredAt, seen }, changed: true };
}
