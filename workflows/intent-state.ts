/** The intent state machine, pure so it can be unit-tested and replayed deterministically. */
export type IntentStatus = 'PENDING' | 'PRECONFIRMED' | 'FILLED' | 'CLAIMED' | 'COMPLETED' | 'EXPIRED' | 'FAILED';

export interface ChainTx { chainId: number; transactionHash: string; timestamp: number }

export type IntentEvent =
  | { type: 'preconfirmation'; chainId: number }
  | ({ type: 'fill' } & ChainTx)
  | ({ type: 'claim' } & ChainTx)
  | { type: 'failure'; chainId: number; reason: string };

export interface IntentState {
  status: IntentStatus;
  originChainIds: number[];
  fill?: ChainTx;
  claims: Record<string, ChainTx>;
}

export const TERMINAL: IntentStatus[] = ['COMPLETED', 'EXPIRED', 'FAILED'];
export const isTerminal = (s: IntentStatus) => TERMINAL.includes(s);

/**
 * PENDING → PRECONFIRMED → FILLED → CLAIMED → COMPLETED, with FAILED on a reported failure before the fill.
 * Events may repeat or arrive out of order: the first fill and the first claim per chain win, a claim that arrives
 * before the fill is kept and counted when the fill comes, and a status never moves backwards.
 */
export function applyEvent(state: IntentState, event: IntentEvent): IntentState {
  if (isTerminal(state.status)) return state;
  const next: IntentState = { ...state, claims: { ...state.claims } };
  switch (event.type) {
    case 'preconfirmation':
      if (next.status === 'PENDING') next.status = 'PRECONFIRMED';
      return next;
    case 'failure':
      if (!next.fill) next.status = 'FAILED';
      return next;
    case 'fill':
      next.fill ??= { chainId: event.chainId, transactionHash: event.transactionHash, timestamp: event.timestamp };
      break;
    case 'claim':
      if (!next.originChainIds.includes(event.chainId)) return state;
      next.claims[String(event.chainId)] ??= { chainId: event.chainId, transactionHash: event.transactionHash, timestamp: event.timestamp };
      break;
  }
  if (next.fill) {
    const claimed = next.originChainIds.filter((id) => next.claims[String(id)]).length;
    next.status = claimed === next.originChainIds.length ? 'COMPLETED' : claimed > 0 ? 'CLAIMED' : 'FILLED';
  }
  return next;
}
