import type { CompactClaim } from '../intents/claim-authorization';
import { MANDATE_WITNESS } from '../intents/typed-data';
import type { IntentOp } from '../intents/types';

/** A payment out of a claimed lock: `claimant` is lockTag ‖ recipient (tag 0 pays the token itself). */
export interface Component {
  claimant: bigint;
  amount: bigint;
}

/**
 * The one argument of The Compact's claim function the claim authorization names (`c.claim`) for the intent's element
 * on `c.chainId`: the sponsor's and the allocator's signatures, the element's witness and the other elements' hashes
 * as the service gave them, and each lock the element commits paid out as `portions` says.
 */
export function compactClaimPayload(
  op: IntentOp,
  c: CompactClaim,
  portions: (id: bigint, amount: bigint) => Component[],
): Record<string, unknown> {
  const el = op.elements.find((e) => Number(e.chainId) === c.chainId);
  if (!el) throw new Error(`the intent has no element on chain ${c.chainId}`);
  const locks = el.idsAndAmounts.map(([id, amount]) => [BigInt(id), BigInt(amount)] as const);
  const batch = c.claim === 'batchMultichainClaim' || c.claim === 'exogenousBatchClaim';
  return {
    allocatorData: c.allocatorData ?? '0x',
    // The object form carries a second signature for the pre-claim operations, which The Compact does not check.
    sponsorSignature:
      typeof c.sponsorSignature === 'string' ? c.sponsorSignature : c.sponsorSignature.notarizedClaimSig,
    sponsor: op.sponsor,
    nonce: BigInt(op.nonce),
    expires: BigInt(op.expires),
    witness: c.witness,
    witnessTypestring: MANDATE_WITNESS,
    ...(batch
      ? { claims: locks.map(([id, amount]) => ({ id, allocatedAmount: amount, portions: portions(id, amount) })) }
      : { id: locks[0][0], allocatedAmount: locks[0][1], claimants: portions(...locks[0]) }),
    additionalChains: c.additionalChains,
    ...(c.claim === 'exogenousClaim' || c.claim === 'exogenousBatchClaim'
      ? { chainIndex: BigInt(c.chainIndex), notarizedChainId: BigInt(c.notarizedChainId) }
      : {}),
  };
}
