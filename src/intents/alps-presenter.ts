import { getAddress } from 'viem';
import { presentClaims } from './claims';
import type { IntentRecord } from './store';

/** GET /intent-operation/{id} as the 1.x client parses it: numeric chain ids, `userAddress`, `depositId` per claim. */
export function presentAlpsStatus(intent: IntentRecord, full: boolean) {
  return {
    status: intent.status,
    destinationChainId: intent.destinationChainId,
    userAddress: getAddress(intent.account),
    claims: presentClaims(intent.id, intent.claims),
    ...(intent.fill ? { fillTimestamp: intent.fill.timestamp, fillTransactionHash: intent.fill.transactionHash } : {}),
    ...(full ? { intentOp: intent.operation, signatures: intent.signatures, history: intent.history } : {}),
  };
}
