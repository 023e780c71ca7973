/** The intent state machine, pure so it can be unit-tested and replayed deterministically. */
export type IntentStatus = 'PENDING' | 'PRECONFIRMED' | 'FILLED' | 'CLAIMED' | 'COMPLETED' | 'EXPIRED' | 'FAILED';

/** `blockNumber` (claims): the block of the Claim, so its reservation is released once a snapshot that recent arrives. */
export interface ChainTx {
  chainId: number;
  transactionHash: string;
  timestamp: number;
  blockNumber?: string;
}

export type IntentEvent =
  | { type: 'preconfirmation'; chainId: number }
  | ({ type: 'fill' } & ChainTx)
  | ({ type: 'claim' } & ChainTx)
  | { type: 'failure'; chainId: number; reason: string };

export interface IntentState {
  status: IntentStatus;
  originChainIds: number[];
  /** unix seconds: a fill whose on-chain timestamp is later does not count (the arbiter will not pay for it) */
  fillDeadline?: number;
  fill?: ChainTx;
  claims: Record<string, ChainTx>;
}

export const TERMINAL: IntentStatus[] = ['COMPLETED', 'EXPIRED', 'FAILED'];
export const isTerminal = (s: IntentStatus) => TERMINAL.includes(s);

/**
 * The statuses each status may move to: applyEvent's moves (a fill reaches FILLED, CLAIMED or COMPLETED at once when
 * claims came first; a late fill moves a FAILED intent on), and EXPIRED when no fill came by the deadline. Nothing
 * leads back, so a write of an earlier status (e.g. by a lifecycle started again after its run was purged) is stale.
 */
const NEXT: Record<IntentStatus, IntentStatus[]> = {
  PENDING: ['PRECONFIRMED', 'FILLED', 'CLAIMED', 'COMPLETED', 'FAILED', 'EXPIRED'],
  PRECONFIRMED: ['FILLED', 'CLAIMED', 'COMPLETED', 'FAILED', 'EXPIRED'],
  FAILED: ['FILLED', 'CLAIMED', 'COMPLETED'],
  FILLED: ['CLAIMED', 'COMPLETED'],
  CLAIMED: ['COMPLETED'],
  COMPLETED: [],
  EXPIRED: [],
};
export const movesForward = (from: IntentStatus, to: IntentStatus): boolean => NEXT[from].includes(to);

/**
 * PENDING → PRECONFIRMED → FILLED → CLAIMED → COMPLETED, with FAILED on a reported failure before the fill.
 * Events may repeat or arrive out of order: the first fill and the first claim per chain win, a claim that arrives
 * before the fill is kept and counted when the fill comes, and a status never moves backwards, except that a fill
 * reported after a failure still fills the intent (the fill is what the chain says; the failure may come from
 * another API process that ingested it first). An event that changes nothing returns the same state object, so the
 * workflow persists (and schedules an activity for) real changes only.
 */
export function applyEvent(state: IntentState, event: IntentEvent): IntentState {
  const next = transition(state, event);
  return JSON.stringify(next) === JSON.stringify(state) ? state : next;
}

function transition(state: IntentState, event: IntentEvent): IntentState {
  const lateFill = state.status === 'FAILED' && event.type === 'fill';
  if (isTerminal(state.status) && !lateFill) return state;
  const next: IntentState = { ...state, claims: { ...state.claims } };
  switch (event.type) {
    case 'preconfirmation':
      if (next.status === 'PENDING') next.status = 'PRECONFIRMED';
      return next;
    case 'failure':
      if (!next.fill) next.status = 'FAILED';
      return next;
    case 'fill':
      if (state.fillDeadline !== undefined && event.timestamp > state.fillDeadline) return state;
      next.fill ??= chainTx(event);
      break;
    case 'claim':
      if (!next.originChainIds.includes(event.chainId)) return state;
      next.claims[String(event.chainId)] ??= chainTx(event);
      break;
  }
  if (next.fill) {
    const claimed = next.originChainIds.filter((id) => next.claims[String(id)]).length;
    next.status = claimed === next.originChainIds.length ? 'COMPLETED' : claimed > 0 ? 'CLAIMED' : 'FILLED';
  }
  return next;
}

/**
 * What the record of a lifecycle takes from an event: applyEvent's move or, once the intent is EXPIRED or FAILED, a
 * claim on one of its origin chains kept beside the status (the arbiter may claim until `expires`). The lifecycle and
 * the indexer route, which records each event as it ingests it (src/intents/store.ts), apply this one rule.
 */
export function recordEvent(state: IntentState, event: IntentEvent): IntentState {
  return event.type === 'claim' && isTerminal(state.status) ? keepClaim(state, event) : applyEvent(state, event);
}

/** A claim kept beside the status, which stays: the first per origin chain wins. */
export function keepClaim(state: IntentState, claim: ChainTx): IntentState {
  const chain = String(claim.chainId);
  if (state.claims[chain] || !state.originChainIds.includes(claim.chainId)) return state;
  return { ...state, claims: { ...state.claims, [chain]: chainTx(claim) } };
}

/**
 * The state once the lifecycle has read its record (src/intents/transition-store.ts, recordedLifecycle), which the
 * indexer route writes by the same rule (recordEvent) as it ingests events: a record at or ahead of the state is
 * taken, its fill and claims before the state's (the record keeps the first of each, whoever reported it). One behind
 * it changes nothing (the lifecycle records each of its own moves before taking it, so only a stale record is behind).
 */
export function adoptRecord(state: IntentState, record: IntentState): IntentState {
  if (record.status !== state.status && !movesForward(state.status, record.status)) return state;
  const fill = record.fill ?? state.fill;
  const next: IntentState = {
    ...state,
    status: record.status,
    claims: { ...state.claims, ...record.claims },
    ...(fill ? { fill } : {}),
  };
  return JSON.stringify(next) === JSON.stringify(state) ? state : next;
}

const chainTx = ({ chainId, transactionHash, timestamp, blockNumber }: ChainTx): ChainTx => ({
  chainId,
  transactionHash,
  timestamp,
  ...(blockNumber !== undefined ? { blockNumber } : {}),
});
