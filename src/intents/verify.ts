import canonicalize from 'canonicalize';
import { hashTypedData, type TypedDataDefinition } from 'viem';
import { DomainError } from '../errors';
import { recoverSigner } from '../signatures/secp256k1';
import { verifyOnChain } from '../signatures/smart-account';
import type { ChainRpc } from '../chains/rpc';
import { originTypedData } from './typed-data';
import type { IntentOp, OriginSignature, SignedIntentOp } from './types';

export const invalidSignature = () => new DomainError('INVALID_SIGNATURE', 'Invalid bundle signature');

/** What a client echoes of an operation: the fields the orchestrator signed, as the wire schema admits them. */
type Echoed = Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'signedMetadata' | 'serverSignature'> & {
  targetExecutionNonce?: string;
  elements: unknown[];
};

/** The fields the orchestrator signed; the client echoes them unchanged, so any difference is tampering. */
const signedPart = (op: Echoed) =>
  canonicalize({
    sponsor: op.sponsor.toLowerCase(),
    nonce: op.nonce,
    expires: op.expires,
    targetExecutionNonce: op.targetExecutionNonce,
    elements: op.elements,
    signedMetadata: op.signedMetadata,
    serverSignature: op.serverSignature,
  });

export interface VerifyDeps {
  compactContract: string;
  rpc: ChainRpc;
}

/** An operation a client echoed with its signatures is the stored one, signed, when what we signed of it is unchanged. */
export const isEchoOf = <T extends Echoed>(echoed: T, stored: IntentOp): echoed is T & SignedIntentOp =>
  signedPart(echoed) === signedPart(stored);

/**
 * A submission is accepted only if it is the operation we quoted and every origin signature and the destination
 * signature come from the sponsor. The stored copy carries the server signature we made, so equality with it (server
 * signature included) proves the operation is ours and unchanged without recovering that signature again. EOAs are
 * recovered locally, each distinct (message, signature) pair once (the client signs one Compact for every element
 * and the destination); smart accounts (ERC-1271, or ERC-6492 while undeployed) are checked on chain
 * (src/signatures/smart-account.ts). `sessionSigner`: the deposit processor's signer acting for the sponsor under a
 * session the sponsor's owner enabled (checked when the session was registered), recovered locally like an EOA.
 */
export async function verifySubmission(
  signed: SignedIntentOp,
  stored: IntentOp,
  accountType: string,
  deps: VerifyDeps,
  sessionSigner?: string,
): Promise<void> {
  if (signedPart(signed) !== signedPart(stored)) throw invalidSignature();
  if (signed.originSignatures.length !== signed.elements.length) throw invalidSignature();

  const messages = originTypedData(signed, deps.compactContract);
  const checks = signed.originSignatures.map((sig, i) => ({ sig, typedData: messages[i] }));
  checks.push({ sig: signed.destinationSignature, typedData: messages[messages.length - 1] });
  const verified = new Map<TypedDataDefinition, Set<OriginSignature>>();
  for (const { sig, typedData } of checks) {
    if (verified.get(typedData)?.has(sig)) continue;
    const ok = sessionSigner
      ? await signedBySponsor(sessionSigner, sig, typedData, 'EOA', deps.rpc)
      : await signedBySponsor(signed.sponsor, sig, typedData, accountType, deps.rpc);
    if (!ok) throw invalidSignature();
    verified.set(typedData, (verified.get(typedData) ?? new Set()).add(sig));
  }
}

export async function signedBySponsor(
  sponsor: string,
  sig: OriginSignature,
  typedData: TypedDataDefinition,
  accountType: string,
  rpc: ChainRpc,
): Promise<boolean> {
  if (accountType === 'EOA' && typeof sig === 'string') {
    try {
      // Compared in lower case: checksumming both addresses again would cost a keccak256 each.
      return (await recoverSigner(hashTypedData(typedData), sig)).toLowerCase() === sponsor.toLowerCase();
    } catch {
      return false;
    }
  }
  const signature = typeof sig === 'string' ? sig : sig.notarizedClaimSig;
  return verifyOnChain(rpc, Number(typedData.domain?.chainId), {
    address: sponsor,
    hash: hashTypedData(typedData),
    signature,
  });
}
