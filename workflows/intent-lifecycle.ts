import { allHandlersFinished, condition, defineQuery, defineSignal, defineUpdate, proxyActivities, proxyLocalActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { Acceptance, Submission } from '../src/intents/types';
import { applyEvent, ChainTx, IntentEvent, IntentState, isTerminal } from './intent-state';

const acts = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: ['Rejected'] },
});

/** Signals (also sent by POST /indexer/events for events carrying the intent's nonce). */
/** Acceptance answers the submit request, so it runs as a local activity (no task-queue round trips). */
const { acceptIntent } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 8, nonRetryableErrorTypes: ['Rejected'] },
});

export const preconfirmationSignal = defineSignal<[{ chainId: number }]>('preconfirmation');
export const fillSignal = defineSignal<[ChainTx]>('fill');
export const claimSignal = defineSignal<[ChainTx]>('claim');
export const failureSignal = defineSignal<[{ chainId: number; reason: string }]>('failure');
export const acceptUpdate = defineUpdate<Acceptance, [Submission]>('accept');
export const stateQuery = defineQuery<IntentState | undefined>('state');

export const intentWorkflowId = (id: string) => `intent-${id}`;

/**
 * One intent, from submission to a terminal state. The `accept` update (sent with update-with-start by the
 * submit route) reserves the funds and records the intent; later submits of the same operation get the same
 * answer. Then the workflow waits for indexer events until the fill deadline, persisting every transition.
 */
export async function intentLifecycle(id: string): Promise<string> {
  let acceptance: Promise<Acceptance> | undefined;
  let state: IntentState | undefined;
  const queue: IntentEvent[] = [];
  setHandler(acceptUpdate, (submission) => (acceptance ??= acceptIntent(id, submission)));
  setHandler(stateQuery, () => state);
  setHandler(preconfirmationSignal, (e) => void queue.push({ type: 'preconfirmation', ...e }));
  setHandler(fillSignal, (e) => void queue.push({ type: 'fill', ...e }));
  setHandler(claimSignal, (e) => void queue.push({ type: 'claim', ...e }));
  setHandler(failureSignal, (e) => void queue.push({ type: 'failure', ...e }));

  await condition(() => acceptance !== undefined);
  let accepted: Acceptance;
  try {
    accepted = await acceptance!;
  } catch {
    return 'REJECTED';
  }
  state = { status: accepted.status, originChainIds: accepted.originChainIds, claims: {} };
  if (!accepted.created) return accepted.status; // an earlier run owns this intent

  let deadlinePassed = false;
  void sleep(Math.max(accepted.msUntilFillDeadline, 0)).then(() => (deadlinePassed = true));
  while (!isTerminal(state.status)) {
    await condition(() => queue.length > 0 || (deadlinePassed && !state!.fill));
    if (queue.length === 0) {
      state = { ...state, status: 'EXPIRED' };
      await acts.recordTransition(id, 'EXPIRED');
      break;
    }
    const event = queue.shift()!;
    const next = applyEvent(state, event);
    if (next !== state) await acts.recordTransition(id, next.status, event);
    state = next;
  }
  await condition(allHandlersFinished);
  return state.status;
}
