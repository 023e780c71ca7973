import {
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  patched,
  proxyLocalActivities,
  setCurrentDetails,
  setDefaultSignalHandler,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { LifecycleActivities } from './contracts/intent-lifecycle';
import { adoptRecord, IntentEvent, IntentState, IntentStatus, isTerminal, recordEvent } from './intent-state';
import {
  claimSignal,
  failureSignal,
  fillSignal,
  type LifecycleStart,
  preconfirmationSignal,
  stateQuery,
} from './contracts/intent-lifecycle';
import { IntentStatus as IntentStatusKey } from './contracts/search-attributes';

/**
 * Transitions are short idempotent DB writes that make a status visible: local activities (no task-queue round
 * trips), retried until they succeed, since a lifecycle must never stop on a passing DB failure.
 */
const { recordTransition, releaseIntent, readRecord } = proxyLocalActivities<LifecycleActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '30 seconds', backoffCoefficient: 2 },
});

/**
 * Events a run handles before it continues as new (sooner when Temporal suggests it): its history stays far below
 * Temporal's 10,000 signals and 51,200 events per run however many events arrive.
 */
export const EVENTS_PER_RUN = 1000;

/**
 * After the fill deadline the lifecycle reads its record again this long after, then twice as long each time until
 * `expires`: a claim the indexer route recorded without waking it (src/ingestion/ingest.ts) ends it within about
 * that time, at a few reads per intent however long its claim window.
 */
export const FIRST_REREAD_SECONDS = 30;

/** Runs that read their record (those started before it ran only the signals they were sent). */
const READS_RECORD = 'lifecycle-reads-record';

/**
 * One accepted intent, from its recorded PENDING state until nothing more can happen to its funds. The indexer route
 * records fills and claims as it ingests them and wakes a lifecycle only once its start delay is over; so the
 * lifecycle reads its record when it wakes (first, at the deadline, then at growing intervals until `expires`, and
 * at `expires`), takes what was recorded, and persists its own transitions before they are visible. The IntentStatus
 * search attribute and the current details follow what it has read.
 * A fill counts by its on-chain timestamp, so one that arrives within the grace after the deadline still fills it;
 * without one the intent EXPIRES. The reservations stay until the signature can no longer be claimed: claims settle
 * their chain (EXPIRED and FAILED intents included: the arbiter may still claim), and at `expires` whatever no claim
 * spent is handed to the ledger, which releases it once a balance snapshot at or after `expires` shows no later claim
 * (src/ledger/ledger.ts); a claim reported after that is recorded by the indexer route.
 */
export async function intentLifecycle(start: LifecycleStart): Promise<IntentStatus> {
  return runLifecycle(start, 'intent');
}

/** The lifecycle both intents and legacy bundles run (workflows/bundle-lifecycle.ts); `kind` picks their records. */
export async function runLifecycle(start: LifecycleStart, kind: 'intent' | 'bundle'): Promise<IntentStatus> {
  let state: IntentState = start.state ?? {
    status: 'PENDING',
    originChainIds: start.originChainIds,
    claims: {},
    fillDeadline: start.fillDeadline,
  };
  const queue: IntentEvent[] = [];
  let handled = 0;
  setHandler(stateQuery, () => state);
  // One handler for every event signal: signals that arrived before the workflow first ran are then dispatched in
  // the order the server accepted them (per-signal handlers would replay them grouped by name).
  const events: string[] = [preconfirmationSignal.name, fillSignal.name, claimSignal.name, failureSignal.name];
  setDefaultSignalHandler((name, payload) => {
    if (events.includes(name)) queue.push({ ...(payload as object), type: name } as IntentEvent);
  });
  setCurrentDetails(state.status);
  const readsRecord = patched(READS_RECORD);
  const showStatus = (status: IntentStatus) => {
    upsertSearchAttributes([{ key: IntentStatusKey, value: status }]);
    setCurrentDetails(status);
  };
  let rereadDue = false;
  const catchUp = async () => {
    rereadDue = false;
    const record = await readRecord(start.id, kind);
    const next = record ? adoptRecord(state, record) : state;
    if (next.status !== state.status) showStatus(next.status);
    state = next;
  };

  // The first task runs at the first event or when the start delay until the deadline ends (src/outbox/outbox.ts),
  // so the timers count from this activation's time, which the SDK's sandboxed Date replays identically.
  const now = Date.now(); // eslint-disable-line no-restricted-properties
  let deadlinePassed = false;
  let claimable = true;
  let recordedAhead = false;
  const deadlineAt = (start.fillDeadline + start.fillGraceSeconds) * 1000;
  // Started at the end of its start delay, a run that reads its record is past the deadline from its first task.
  if (readsRecord && now >= deadlineAt) deadlinePassed = true;
  else void sleep(Math.max(deadlineAt - now, 1)).then(() => (deadlinePassed = true));
  void sleep(Math.max(start.expires * 1000 - now, 1)).then(() => (claimable = false));
  const waitingForFill = () => !state.fill && !isTerminal(state.status) && !recordedAhead;
  if (readsRecord) {
    void rereads(start, now, (due) => (rereadDue = due));
    // Woken early by a signal: what was recorded before it comes first. Else the delay ended at the deadline, whose
    // read the loop makes at once.
    if (queue.length && !deadlinePassed) await catchUp();
  }
  while (state.status !== 'COMPLETED') {
    await continueIfLong(start, state, handled, queue);
    await condition(() => queue.length > 0 || !claimable || (deadlinePassed && waitingForFill()) || rereadDue);
    const event = queue.shift();
    if (!event && readsRecord) await catchUp(); // the deadline, a reread or `expires`: what was recorded meanwhile
    if (!event && !(deadlinePassed && waitingForFill())) {
      if (!claimable) break; // `expires` passed: nothing more can be claimed
      continue;
    }
    if (event) handled++;
    const next: IntentState = event ? recordEvent(state, event) : { ...state, status: 'EXPIRED' };
    if (next === state) continue; // a duplicate or out-of-date event: nothing to persist
    const outcome = await recordTransition(start.id, next.status, event, kind);
    if (!event && outcome === 'refused') {
      // The indexer route recorded an event this run has not taken yet (a fill by the deadline, say:
      // src/intents/transition-store.ts, recordLifecycleEvents): the record has it (a run from before records were
      // read waits for its signal, queued in the same transaction).
      recordedAhead = true;
      if (readsRecord) await catchUp();
      continue;
    }
    if (next.status !== state.status) showStatus(next.status);
    state = next;
  }
  if (state.status !== 'COMPLETED') await releaseIntent(start.id, kind);
  await condition(allHandlersFinished);
  return state.status;
}

/**
 * Sets `due` at FIRST_REREAD_SECONDS after the deadline's grace, then at intervals twice as long each time, while
 * another would come before `expires` (whose own read the lifecycle makes anyway).
 */
async function rereads(start: LifecycleStart, now: number, due: (due: boolean) => void): Promise<void> {
  let at = Math.max((start.fillDeadline + start.fillGraceSeconds) * 1000, now);
  for (let wait = FIRST_REREAD_SECONDS * 1000; at + wait < start.expires * 1000; wait *= 2) {
    at += wait;
    await sleep(at - now);
    due(true);
    now = at;
  }
}

/**
 * Continues as new, carrying the state, once this run has handled EVENTS_PER_RUN events or Temporal suggests it
 * (its history grows long): a flood of events can neither fill a run's history nor exhaust its signal limit. Only
 * between events, with none queued, so nothing is carried but the state; the timers are set again from the same
 * absolute times.
 */
async function continueIfLong(
  start: LifecycleStart,
  state: IntentState,
  handled: number,
  queue: IntentEvent[],
): Promise<void> {
  if (queue.length || !(handled >= EVENTS_PER_RUN || workflowInfo().continueAsNewSuggested)) return;
  await condition(allHandlersFinished);
  // The search attributes as this run left them (its status), set explicitly rather than left to the server.
  await makeContinueAsNewFunc<(s: LifecycleStart) => Promise<IntentStatus>>({
    typedSearchAttributes: workflowInfo().typedSearchAttributes,
  })({ ...start, state });
}
