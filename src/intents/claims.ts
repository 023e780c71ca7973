import type { IntentStatus } from '../../workflows/intent-state';

export interface ClaimState {
  chainId: number;
  status: 'CLAIMED' | 'EXPIRED' | 'PENDING';
  transactionHash?: string;
  timestamp?: number;
}

/** One entry per origin chain of an intent or bundle: CLAIMED with its transaction, else PENDING, or EXPIRED with it. */
export function claimStates(
  status: IntentStatus,
  originChainIds: string[],
  claims: Record<string, { transactionHash: string; timestamp: number }>,
): ClaimState[] {
  return originChainIds.map((chainId) => {
    const claim = claims[chainId];
    return claim
      ? {
          chainId: Number(chainId),
          status: 'CLAIMED',
          transactionHash: claim.transactionHash,
          timestamp: claim.timestamp,
        }
      : { chainId: Number(chainId), status: status === 'EXPIRED' ? 'EXPIRED' : 'PENDING' };
  });
}

/** The alps and legacy shape: numeric chain ids, `claimTimestamp`/`claimTransactionHash`, `depositId` = the intent or bundle id. */
export function presentClaims(id: string, states: ClaimState[]) {
  return states.map((c) => ({
    chainId: c.chainId,
    status: c.status,
    ...(c.transactionHash ? { claimTimestamp: c.timestamp, claimTransactionHash: c.transactionHash } : {}),
    depositId: id,
  }));
}
