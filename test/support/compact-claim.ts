import { concat, encodeAbiParameters, keccak256, toHex, type Hex } from 'viem';

/**
 * The Compact's claim hashing rebuilt by hand, from its typestrings (EIP712Types.sol, HashLib) and the Mandate
 * witness typestring an arbiter submits, with nothing of the service's code: what the service's claim authorizations
 * are checked against. Operations are in the wire shape (decimal strings, lock ids as one uint256).
 */
export const WITNESS_TYPESTRING =
  'Target target,uint128 minGas,Op originOps,Op destOps,bytes32 q)Op(bytes32 vt,Ops[] ops)Ops(address to,uint256 value,bytes data)Target(address recipient,Token[] tokenOut,uint256 targetChain,uint256 fillExpiry)Token(address token,uint256 amount';
const LOCK = 'Lock(bytes12 lockTag,address token,uint256 amount)';
const ELEMENT = 'Element(address arbiter,uint256 chainId,Lock[] commitments';
const MULTICHAIN = 'MultichainCompact(address sponsor,uint256 nonce,uint256 expires,Element[] elements)';

const typehash = (typestring: string) => keccak256(toHex(typestring));
/** With a witness: `…,Mandate mandate)` and `Mandate(<witness>)` after the Lock type (HashLib.toMultichainTypehashes). */
const ELEMENT_W = typehash(`${ELEMENT},Mandate mandate)${LOCK}Mandate(${WITNESS_TYPESTRING})`);
const MULTICHAIN_W = typehash(`${MULTICHAIN}${ELEMENT},Mandate mandate)${LOCK}Mandate(${WITNESS_TYPESTRING})`);
/** The Compact's table (EIP712Types.sol), and the MultichainCompact's with this Mandate witness. */
export const TYPEHASHES = {
  lock: typehash(LOCK),
  element: typehash(`${ELEMENT})${LOCK}`),
  multichainCompact: typehash(`${MULTICHAIN}${ELEMENT})${LOCK}`),
  multichainCompactWithMandate: MULTICHAIN_W,
};
const MANDATE_T = typehash(`Mandate(${WITNESS_TYPESTRING})`);
const TOKEN_T = typehash('Token(address token,uint256 amount)');
const TARGET_T = typehash(
  'Target(address recipient,Token[] tokenOut,uint256 targetChain,uint256 fillExpiry)Token(address token,uint256 amount)',
);
const OPS_T = typehash('Ops(address to,uint256 value,bytes data)');
const OP_T = typehash('Op(bytes32 vt,Ops[] ops)Ops(address to,uint256 value,bytes data)');

/** keccak256(abi.encode(...)) of static words. */
const encoded = (types: string[], values: unknown[]) =>
  keccak256(
    encodeAbiParameters(
      types.map((type) => ({ type })),
      values,
    ),
  );
/** An EIP-712 array of structs: keccak256 of its members' hashes, packed, in their order. */
const packed = (hashes: Hex[]) => keccak256(concat(hashes));
const lockTagOf = (id: string) => toHex(BigInt(id) >> 160n, { size: 12 });
const tokenOf = (id: string) => toHex(BigInt(id) & ((1n << 160n) - 1n), { size: 20 });

interface WireOp {
  vt: Hex;
  ops: { to: string; value: string; data: string }[];
}
interface WireElement {
  arbiter: string;
  chainId: string;
  idsAndAmounts: [string, string][];
  mandate: {
    recipient: string;
    tokenOut: [string, string][];
    destinationChainId: string;
    fillDeadline: string;
    minGas: string;
    preClaimOps: WireOp;
    destinationOps: WireOp;
    qualifier: { encodedVal: Hex };
  };
}
export interface WireIntent {
  sponsor: string;
  nonce: string;
  expires: string;
  elements: WireElement[];
}

const opHash = (op: WireOp) =>
  encoded(
    ['bytes32', 'bytes32', 'bytes32'],
    [
      OP_T,
      op.vt,
      packed(
        op.ops.map((o) =>
          encoded(
            ['bytes32', 'address', 'uint256', 'bytes32'],
            [OPS_T, o.to, BigInt(o.value), keccak256(o.data as Hex)],
          ),
        ),
      ),
    ],
  );

export function witnessOf(m: WireElement['mandate']): Hex {
  const tokenOut = packed(
    m.tokenOut.map(([id, amount]) =>
      encoded(['bytes32', 'address', 'uint256'], [TOKEN_T, tokenOf(id), BigInt(amount)]),
    ),
  );
  const target = encoded(
    ['bytes32', 'address', 'bytes32', 'uint256', 'uint256'],
    [TARGET_T, m.recipient, tokenOut, BigInt(m.destinationChainId), BigInt(m.fillDeadline)],
  );
  return encoded(
    ['bytes32', 'bytes32', 'uint128', 'bytes32', 'bytes32', 'bytes32'],
    [
      MANDATE_T,
      target,
      BigInt(m.minGas),
      opHash(m.preClaimOps),
      opHash(m.destinationOps),
      keccak256(m.qualifier.encodedVal),
    ],
  );
}

export function elementHashOf(e: WireElement): Hex {
  const commitments = packed(
    e.idsAndAmounts.map(([id, amount]) =>
      encoded(
        ['bytes32', 'bytes12', 'address', 'uint256'],
        [TYPEHASHES.lock, lockTagOf(id), tokenOf(id), BigInt(amount)],
      ),
    ),
  );
  return encoded(
    ['bytes32', 'address', 'uint256', 'bytes32', 'bytes32'],
    [ELEMENT_W, e.arbiter, BigInt(e.chainId), commitments, witnessOf(e.mandate)],
  );
}

/** claimHash from the element hashes in chain order, as every chain rebuilds it (its own element among the others). */
export const claimHashFrom = (op: Pick<WireIntent, 'sponsor' | 'nonce' | 'expires'>, elementHashes: Hex[]): Hex =>
  encoded(
    ['bytes32', 'address', 'uint256', 'uint256', 'bytes32'],
    [MULTICHAIN_W, op.sponsor, BigInt(op.nonce), BigInt(op.expires), packed(elementHashes)],
  );

export const claimHashOf = (op: WireIntent): Hex => claimHashFrom(op, op.elements.map(elementHashOf));

/** DomainLib: EIP712Domain(name "The Compact", version "1", chainId, verifyingContract), no salt. */
export const domainSeparator = (chainId: number, contract: string): Hex =>
  encoded(
    ['bytes32', 'bytes32', 'bytes32', 'uint256', 'address'],
    [
      typehash('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
      typehash('The Compact'),
      typehash('1'),
      BigInt(chainId),
      contract,
    ],
  );

/** What a signer allocator (SimpleAllocator) and the sponsor's ECDSA check are made over on `chainId`. */
export const claimDigest = (claimHash: Hex, chainId: number, contract: string): Hex =>
  keccak256(concat(['0x1901', domainSeparator(chainId, contract), claimHash]));
