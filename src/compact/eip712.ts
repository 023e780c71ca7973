import { concat, hashDomain, keccak256, type Hex, type TypedData, type TypedDataDefinition } from 'viem';
import { members } from '../signatures/eip712-members';

/** The Compact v1 domain of one chain (name "The Compact", version "1"; DomainLib.sol). */
export const compactDomain = (chainId: number, verifyingContract: string) =>
  ({ name: 'The Compact', version: '1', chainId, verifyingContract: verifyingContract as `0x${string}` }) as const;

const DOMAIN_TYPES: TypedData = {
  EIP712Domain: members('string name,string version,uint256 chainId,address verifyingContract'),
};

/**
 * What a signer allocator checks `allocatorData` against when The Compact on `chainId` asks it to authorize a claim
 * (SimpleAllocator): keccak256(0x1901 ‖ that contract's DOMAIN_SEPARATOR() ‖ claimHash). The claimHash is a struct
 * hash and the same on every chain of a multichain compact; the domain makes the digest, and so the signature, the
 * chain's own.
 */
export const allocatorDigest = (claimHash: Hex, chainId: number, contract: string): Hex =>
  keccak256(
    concat(['0x1901', hashDomain({ domain: compactDomain(chainId, contract), types: DOMAIN_TYPES }), claimHash]),
  );

/** Lock(bytes12 lockTag,address token,uint256 amount), shared by every Compact struct. */
export const LOCK = members('bytes12 lockTag,address token,uint256 amount');

/** The fields a Compact and a BatchCompact start with. */
const HEAD = members('address arbiter,address sponsor,uint256 nonce,uint256 expires');

export interface Lock {
  lockTag: `0x${string}`;
  token: `0x${string}`;
  amount: bigint;
}

/**
 * What the allocator authorizes for an allocated transfer: a Compact with arbiter = sponsor = the account (the
 * contract rebuilds it with msg.sender in both places), over the total amount of the lock.
 */
export function compactAuthorization(
  chainId: number,
  contract: string,
  sponsor: `0x${string}`,
  nonce: bigint,
  expires: bigint,
  lock: Lock,
): TypedDataDefinition {
  return {
    domain: compactDomain(chainId, contract),
    types: {
      Compact: [...HEAD, ...LOCK],
    },
    primaryType: 'Compact',
    message: { arbiter: sponsor, sponsor, nonce, expires, ...lock },
  };
}

/** The batch form: one Lock per transferred id, in the order of the transfers (the contract does not sort). */
export function batchCompactAuthorization(
  chainId: number,
  contract: string,
  sponsor: `0x${string}`,
  nonce: bigint,
  expires: bigint,
  locks: Lock[],
): TypedDataDefinition {
  return {
    domain: compactDomain(chainId, contract),
    types: {
      BatchCompact: [...HEAD, { name: 'commitments', type: 'Lock[]' }],
      Lock: LOCK,
    },
    primaryType: 'BatchCompact',
    message: { arbiter: sponsor, sponsor, nonce, expires, commitments: locks },
  };
}
