import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { VerificationActivities } from './contracts/verification';
import {
  type ProviderState,
  type ProviderUpdate,
  providerUpdateSignal,
  type VerificationStart,
} from './contracts/verification';
import { applyUpdate, isFinal, type VerificationState } from './verification-state';

const { recordVerificationStatus, markVerificationStale } = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One customer's verification for one currency, from the first hosted link to the provider's decision. Provider
 * callbacks arrive as signals (recorded by the callback route, so none is lost while no worker runs); each change is
 * persisted and sent as a `verification-updated` webhook; a verification that stays pending (the customer never
 * finishes, or review takes too long) for `pendingTimeoutSeconds` is marked stale and reported once, and still waits.
 */
export async function verifyCustomer(start: VerificationStart): Promise<ProviderState> {
  let state: VerificationState = { status: start.status, lastAt: 0, seen: [] };
  const inbox: ProviderUpdate[] = [];
  setHandler(providerUpdateSignal, (u) => void inbox.push(u));
  let stale = false;
  while (!isFinal(state.status)) {
    const arrived = stale
      ? await condition(() => inbox.length > 0).then(() => true)
      : await condition(() => inbox.length > 0, `${start.pendingTimeoutSeconds}s`);
    if (!arrived) {
      await markVerificationStale(start.verificationId, `stale:${state.seen.at(-1) ?? 'start'}`);
      stale = true;
      continue;
    }
    while (inbox.length) {
      const update = inbox.shift()!;
      const applied = applyUpdate(state, update);
      state = applied.state;
      if (applied.changed) {
        await recordVerificationStatus(start.verificationId, state.status, update.eventId);
        stale = false;
      }
    }
  }
  return state.status;
}
