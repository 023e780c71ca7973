import { getAddress, hashStruct, type Hex, type TypedData } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { allocatorDigest } from '../compact/eip712';
import { DomainError } from '../errors';
import { attestFill, fillSender, permit2ClaimHash, type FillAttestation, type FillAttester } from './fill-attestation';
import { permit2WitnessCall } from './permit2-call';
import type { ClaimableIntent } from './store';
import { MANDATE_WITNESS, multichainCompact } from './typed-data';
import type { Element, FundingMethod, IntentOp, OriginSignature } from './types';

/**
 * The struct hashes every claim of an intent rebuilds (HashLib): the claimHash, hashStruct of the MultichainCompact
 * with its Mandate witness, the same on every chain; and per element its hash (what the other chains pass as
 * `additionalChains`) and its witness (hashStruct of its Mandate).
 */
export function claimHashes(op: Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'elements'>) {
  const { types: named, message } = multichainCompact(op);
  const types: TypedData = named; // every struct of the set is hashed, not only the primary type
  return {
    claimHash: hashStruct({ types, primaryType: 'MultichainCompact', data: message }),
    elements: message.elements.map((e) => ({
      hash: hashStruct({ types, primaryType: 'Element', data: e }),
      witness: hashStruct({ types, primaryType: 'Mandate', data: e.mandate }),
    })),
  };
}

/**
 * One origin element's claim through The Compact: `multichainClaim` on the notarized chain (the first element's, whose
 * domain the sponsor signed in), `exogenousClaim` elsewhere, with the element inserted after
 * `additionalChains[chainIndex]`; an element that commits more than one lock is claimed by the batch form of the same
 * (`batchMultichainClaim`, `exogenousBatchClaim`), which take a component per lock. `allocatorData` is null once the intent's reservations on the chain were released.
 */
export type CompactClaim = Attested & {
  chainId: number;
  fundingMethod: 'COMPACT';
  compact: Hex;
  notarizedChainId: number;
  witness: Hex;
  additionalChains: Hex[];
  sponsorSignature: OriginSignature;
  allocatorData: Hex | null;
} & (
    | { claim: 'multichainClaim' | 'batchMultichainClaim' }
    | { claim: 'exogenousClaim' | 'exogenousBatchClaim'; chainIndex: number }
  );

/**
 * The element's signed arbiter, and when it is our arbiter contract on that chain (INTENT_ARBITER_<chainId>) and the
 * fill is proven, the service's attestation of the fill that the arbiter checks before it claims for the relayer.
 */
export interface Attested {
  arbiter: Hex;
  fillAttestation: FillAttestation | null;
}

/** An element the arbiter claims without The Compact (Permit2 pulls wallet funds): the allocator authorizes nothing. */
export interface UnallocatedClaim extends Attested {
  chainId: number;
  fundingMethod: Exclude<FundingMethod, 'COMPACT'>;
  allocatorData: null;
}

export interface ClaimAuthorization {
  nonce: string;
  expires: string;
  sponsor: string;
  claimHash: Hex | null;
  witnessTypestring: string | null;
  elements: (CompactClaim | UnallocatedClaim)[];
}

const fundingOf = (e: Element) => e.mandate.qualifier.settlementContext.fundingMethod;

/** An element that commits more than one lock: The Compact claims it with a component per lock. */
const batch = (e: { idsAndAmounts: unknown[] }) => e.idsAndAmounts.length > 1;

/**
 * What a relayer needs from the allocator to claim an intent on each origin chain. For each chain whose reservation
 * the ledger still holds, `allocatorData` is the allocator key's signature over keccak256(0x1901 ‖ The Compact's
 * domain separator on that chain ‖ claimHash), as a signer allocator checks it in `authorizeClaim`; the nonce and
 * `expires` are in the claimHash, so it authorizes this intent's claims and nothing else. ECDSA with RFC 6979 nonces
 * is deterministic, so asking again gives the same answer while nothing is released.
 * Refused (409) past `expires`, when the contract takes no claim, and when every chain's reservation is released
 * (claims settled, or the intent cancelled: a voided deposit's), whatever funds it.
 */
export interface ClaimSigners {
  compact: Hex;
  allocator: PrivateKeyAccount;
  attester?: FillAttester;
}

export async function authorizeClaim(intent: ClaimableIntent, deps: ClaimSigners): Promise<ClaimAuthorization> {
  const { id, operation: op, signatures, heldChainIds } = intent;
  if (intent.expired)
    throw new DomainError('CONFLICT', `Intent ${id} expired at ${op.expires}: The Compact accepts no claim of it`);
  const head = { nonce: op.nonce, expires: op.expires, sponsor: op.sponsor };
  // Wallet funds too: a Permit2 claim needs no allocator signature, but a relayer asks here before it fills.
  if (!op.elements.some((e) => heldChainIds.includes(Number(e.chainId)))) {
    throw new DomainError(
      'CONFLICT',
      `Intent ${id} holds no reserved funds any more (its claims settled, or it was cancelled): no claim of it is authorized`,
    );
  }
  const attest = await attestation(intent, deps.attester);
  // A Permit2-funded element makes every origin signature a Permit2 one (the client signs one kind per intent).
  if (op.elements.some((e) => fundingOf(e) === 'PERMIT2')) {
    const elements = await Promise.all(
      op.elements.map(async (e) => ({
        chainId: Number(e.chainId),
        fundingMethod: fundingOf(e) as UnallocatedClaim['fundingMethod'],
        allocatorData: null,
        ...(await attest(e, () =>
          permit2ClaimHash(op.sponsor, BigInt(op.nonce), permit2WitnessCall(e, op.nonce, op.expires).witness),
        )),
      })),
    );
    return { ...head, claimHash: null, witnessTypestring: null, elements };
  }
  const { claimHash, elements: hashes } = claimHashes(op);
  const notarizedChainId = Number(op.elements[0].chainId);
  const elements = await Promise.all(
    op.elements.map(async (e, i): Promise<CompactClaim> => {
      const chainId = Number(e.chainId);
      return {
        chainId,
        fundingMethod: 'COMPACT',
        compact: deps.compact,
        ...(i === 0
          ? { claim: batch(e) ? ('batchMultichainClaim' as const) : ('multichainClaim' as const) }
          : { claim: batch(e) ? ('exogenousBatchClaim' as const) : ('exogenousClaim' as const), chainIndex: i - 1 }),
        notarizedChainId,
        witness: hashes[i].witness,
        additionalChains: hashes.filter((_, j) => j !== i).map((h) => h.hash),
        sponsorSignature: signatures.originSignatures[i],
        allocatorData: heldChainIds.includes(chainId)
          ? await deps.allocator.sign({ hash: allocatorDigest(claimHash, chainId, deps.compact) })
          : null,
        ...(await attest(e, () => claimHash)),
      };
    }),
  );
  return { ...head, claimHash, witnessTypestring: MANDATE_WITNESS, elements };
}

/**
 * Per element, its arbiter and the fill attestation: made only for an element that names the arbiter configured on
 * its chain, once the fill is proven (the intent's fill is recorded only at the settlement depth), paying whoever
 * sent the fill transaction.
 */
async function attestation(intent: ClaimableIntent, attester: FillAttester | undefined) {
  const fill = intent.fill;
  const fillChainId = fill?.chainId ?? Number(intent.operation.elements[0].mandate.destinationChainId);
  // A fill whose sender cannot be read now (the RPC down) is attested to nobody yet: the relayer asks again.
  const relayer =
    attester && fill
      ? await fillSender(attester.rpc, fillChainId, fill.transactionHash as Hex).catch(() => undefined)
      : undefined;
  return async (e: Element, claimHash: () => Hex): Promise<Attested> => {
    const chainId = Number(e.chainId);
    const arbiter = getAddress(e.arbiter);
    const ours = attester?.arbiters.get(chainId);
    if (!attester || !fill || !relayer || !ours || getAddress(ours) !== arbiter)
      return { arbiter, fillAttestation: null };
    const fillTransaction = fill.transactionHash as Hex;
    return {
      arbiter,
      fillAttestation: await attestFill(
        attester.account,
        { chainId, arbiter },
        {
          claimHash: claimHash(),
          fillChainId,
          fillTransaction,
          relayer,
        },
      ),
    };
  };
}
