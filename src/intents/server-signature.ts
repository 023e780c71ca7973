import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { concat, getTypesForEIP712Domain, hashDomain, hashStruct, keccak256, type Hex } from 'viem';
import { recoverSigner } from '../signatures/secp256k1';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { IntentOp } from './types';
import { members } from '../signatures/eip712-members';

/**
 * `serverSignature`: the orchestrator key's EIP-712 signature over everything in the operation it quoted
 * (elements, metadata, nonces, expiry), so a submitted operation can be recognised as ours and unmodified.
 * The body is hashed in RFC 8785 canonical JSON, so key order on the wire does not matter, with SHA-256: the digest
 * is ours alone (no contract checks it), and Node's native hash costs a small part of keccak256 in JavaScript.
 */
const types = {
  IntentQuote: members('address sponsor,uint256 nonce,uint256 expires,bytes32 bodyHash'),
} as const;
const domain = { name: 'IntentOrchestrator', version: '1' } as const;

export type UnsignedIntentOp = Omit<IntentOp, 'serverSignature'>;

export function bodyHash(op: UnsignedIntentOp): Hex {
  const { sponsor, nonce, expires, targetExecutionNonce, elements, signedMetadata } = op;
  return `0x${createHash('sha256').update(canonicalize({ sponsor, nonce, expires, targetExecutionNonce, elements, signedMetadata })!).digest('hex')}`;
}

const message = (op: UnsignedIntentOp) => ({
  sponsor: op.sponsor as Hex,
  nonce: BigInt(op.nonce),
  expires: BigInt(op.expires),
  bodyHash: bodyHash(op),
});

// EIP-712 as viem's hashTypedData computes it, with the constant domain separator hashed once (a quote signs one
// message per plan; the unit test checks the digest against hashTypedData).
const domainSeparator = hashDomain({
  domain,
  types: { EIP712Domain: getTypesForEIP712Domain({ domain }), ...types },
} as Parameters<typeof hashDomain>[0]);
export const quoteDigest = (op: UnsignedIntentOp): Hex =>
  keccak256(concat(['0x1901', domainSeparator, hashStruct({ data: message(op), primaryType: 'IntentQuote', types })]));

export function signIntentOp(op: UnsignedIntentOp, key: PrivateKeyAccount): Promise<Hex> {
  return key.sign!({ hash: quoteDigest(op) });
}

export async function serverSigner(op: IntentOp): Promise<string | undefined> {
  try {
    return await recoverSigner(quoteDigest(op), op.serverSignature as Hex);
  } catch {
    return undefined;
  }
}
