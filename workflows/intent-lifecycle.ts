import { allHandlersFinished, condition, defineQuery, defineSignal, proxyLocalActivities, setCurrentDetails, setDefaultSignalHandler, setHandler, sleep, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { applyEvent, ChainTx, IntentEvent, IntentState, IntentStatus, isTerminal } from './intent-state';
import { IntentStatus as IntentStatusKey } from './search-attributes';

/**
 * Transitions are short idempotent DB writes that make a status visible: local activities (no task-queue round
 * trips), retried until they succeed, since a lifecycle must never stop on a passing DB failure.
 */
const { recordTransition } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

/** Signals (delivered from the indexer route's outbox; operators may send them directly). */
export const preconfirmationSignal = defineSignal<[{ chainId: number }]>('preconfirmation');
export const fillSignal = defineSignal<[ChainTx]>('fill');
export const claimSignal = defineSignal<[ChainTx]>('claim');
export const failureSignal = defineSignal<[{ chainId: number; reason: string }]>('failure');
export const stateQuery = defineQuery<IntentState>('state');

export const intentWorkflowId = (id: string) => `intent-${id}`;

/** What the submit route recorded, handed to the lifecycle it starts (or the outbox sweeper starts for it). */
export interface LifecycleStart { id: string; originChainIds: number[]; fillDeadline: number }

/**
 * One accepted intent, from its recorded PENDING state to a terminal one: waits for indexer events until the fill
 * deadline, persisting every transition (terminal ones with the release of the reservations) before it is visible,
 * and keeps the IntentStatus search attribute and the current details current for operators.
 */
export async function intentLifecycle(start: LifecycleStart): Promise<IntentStatus> {
  let state: IntentState = { status: 'PENDING', originChainIds: start.originChainIds, claims: {} };
  const queue: IntentEvent[] = [];
  setHandler(stateQuery, () => state);
  // One handler for every event signal: signals that arrived before the workflow first ran are then dispatched in
  // the order the server accepted them (per-signal handlers would replay them grouped by name).
  const events: string[] = [preconfirmationSignal.name, fillSignal.name, claimSignal.name, failureSignal.name];
  setDefaultSignalHandler((name, payload) => {
    if (events.includes(name)) queue.push({ ...(payload as object), type: name } as IntentEvent);
  });
  setCurrentDetails('PENDING');

  let deadlinePassed = false;
  void sleep(Math.max(start.fillDeadline * 1000 - workflowInfo().startTime.getTime(), 1)).then(() => (deadlinePassed = true));
  while (!isTerminal(state.status)) {
    await condition(() => queue.length > 0 || (deadlinePassed && !state.fill));
    const event = queue.shift();
    const next: IntentState = event ? applyEvent(state, event) : { ...state, status: 'EXPIRED' };
    if (next === state) continue; // a duplicate or out-of-date event: nothing to persist
    await recordTransition(start.id, next.status, event);
    if (next.status !== state.status) {
      upsertSearchAttributes([{ key: IntentStatusKey, value: next.status }]);
      setCurrentDetails(next.status);
    }
    state = next;
  }
  await condition(allHandlersFinished);
  return state.status;
}
