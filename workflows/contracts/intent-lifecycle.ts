import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { ChainTx, IntentEvent, IntentState, IntentStatus } from '../intent-state';

/**
 * The intent lifecycle's contract (workflows/intent-lifecycle.ts runs it; src/intents starts it, src/ingestion and
 * src/bundles signal it). Signal and query names are recorded in histories: never rename them.
 */
/** The workflow function's name: what a start sends as its type (workflows/index.ts exports it). */
export const intentWorkflowType = 'intentLifecycle';
export const intentWorkflowId = (id: string) => `intent-${id}`;

/**
 * Signals, delivered from the indexer route's outbox as signal-with-start to lifecycles past their start delay (one
 * still in it reads its record when the delay ends instead: src/ingestion/ingest.ts), and from the awaiting-owner
 * workflow. A plain signal would wait out the start delay (operators use `temporal workflow signal-with-start`).
 */
export const preconfirmationSignal = defineSignal<[{ chainId: number }]>('preconfirmation');
export const fillSignal = defineSignal<[ChainTx]>('fill');
export const claimSignal = defineSignal<[ChainTx]>('claim');
export const failureSignal = defineSignal<[{ chainId: number; reason: string }]>('failure');
export const stateQuery = defineQuery<IntentState>('state');

/**
 * What the submit route recorded, handed to the lifecycle it starts (or the outbox sweeper starts for it). Times are
 * unix seconds: the fill deadline, how long after it a fill may still arrive, and `expires` (the end of claims).
 * `state`: where a previous run left off when it continued as new. The lifecycle returns its final IntentStatus.
 */
export interface LifecycleStart {
  id: string;
  originChainIds: number[];
  fillDeadline: number;
  fillGraceSeconds: number;
  expires: number;
  state?: IntentState;
}

/** Intents and legacy bundles run the same lifecycle, each recorded in its own table. */
export type LifecycleKind = 'intent' | 'bundle';

/** What a transition did: moved the status, kept it (the event recorded beside it), or was refused as stale. */
export type TransitionOutcome = 'moved' | 'kept' | 'refused';

/** The lifecycle's activities (activities/index.ts implements them over src/intents/store.ts). */
export interface LifecycleActivities {
  recordTransition(
    id: string,
    status: IntentStatus,
    event?: IntentEvent,
    kind?: LifecycleKind,
  ): Promise<TransitionOutcome>;
  releaseIntent(id: string, kind?: LifecycleKind): Promise<void>;
  /** What the record holds of the lifecycle (null before its submit commits): the events ingested meanwhile. */
  readRecord(id: string, kind?: LifecycleKind): Promise<IntentState | null>;
}
