import type { IntentStatus } from '../../workflows/intent-state';

/** One entry per origin chain of an intent or bundle: CLAIMED with its transaction, else PENDING, or EXPIRED with it. */
export function presentClaims(id: string, status: IntentStatus, originChainIds: string[], claims: Record<string, { transactionHash: string; timestamp: number }>) {
  return originChainIds.map((chainId) => {
    const claim = claims[chainId];
    return claim
      ? { chainId: Number(chainId), status: 'CLAIMED', claimTimestamp: claim.timestamp, claimTransactionHash: claim.transactionHash, depositId: id }
      : { chainId: Number(chainId), status: status === 'EXPIRED' ? 'EXPIRED' : 'PENDING', depositId: id };
  });
}
