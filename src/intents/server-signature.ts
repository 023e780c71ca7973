import canonicalize from 'canonicalize';
import { keccak256, recoverTypedDataAddress, stringToHex, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { IntentOp } from './types';

/**
 * `serverSignature`: the orchestrator key's EIP-712 signature over everything in the operation it quoted
 * (elements, metadata, nonces, expiry), so a submitted operation can be recognised as ours and unmodified.
 * The body is hashed in RFC 8785 canonical JSON, so key order on the wire does not matter.
 */
const types = {
  IntentQuote: [
    { name: 'sponsor', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expires', type: 'uint256' },
    { name: 'bodyHash', type: 'bytes32' },
  ],
} as const;
const domain = { name: 'IntentOrchestrator', version: '1' } as const;

export type UnsignedIntentOp = Omit<IntentOp, 'serverSignature'>;

export function bodyHash(op: UnsignedIntentOp): Hex {
  const { sponsor, nonce, expires, targetExecutionNonce, elements, signedMetadata } = op;
  return keccak256(stringToHex(canonicalize({ sponsor, nonce, expires, targetExecutionNonce, elements, signedMetadata })!));
}

const message = (op: UnsignedIntentOp) => ({ sponsor: op.sponsor as Hex, nonce: BigInt(op.nonce), expires: BigInt(op.expires), bodyHash: bodyHash(op) });

export function signIntentOp(op: UnsignedIntentOp, key: PrivateKeyAccount): Promise<Hex> {
  return key.signTypedData({ domain, types, primaryType: 'IntentQuote', message: message(op) });
}

export async function serverSigner(op: IntentOp): Promise<string | undefined> {
  try {
    return await recoverTypedDataAddress({ domain, types, primaryType: 'IntentQuote', message: message(op), signature: op.serverSignature });
  } catch {
    return undefined;
  }
}
