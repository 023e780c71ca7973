import { domainSeparator, encodeAbiParameters, encodePacked, getAddress, keccak256, zeroHash, type Hex } from 'viem';
import { entryPoint07Address, getUserOperationHash, type UserOperation } from 'viem/account-abstraction';
import type { IntentOp } from '../intents/types';

/**
 * The 0.5.x order bundle (a MultichainCompact with one segment per origin chain), as the client receives, signs and
 * echoes it: bigints as decimal strings, `fillDeadline` and `maxFeeBps` as numbers (clients.md 5.1, 5.2). An echo
 * may carry a uint256 as a JSON number while exact (src/bundles/schemas.ts), so every reader converts.
 */
export type Uint = string | number;
export interface Exec {
  to: string;
  value: Uint;
  data: Hex;
}
export interface Witness {
  recipient: string;
  tokenOut: Uint[][];
  depositId: Uint;
  targetChain: Uint;
  fillDeadline: number;
  execs: Exec[];
  userOpHash: Hex;
  maxFeeBps: number;
}
export interface Segment {
  arbiter: string;
  chainId: Uint;
  idsAndAmounts: Uint[][];
  witness: Witness;
}
export interface OrderBundle {
  sponsor: string;
  nonce: Uint;
  expires: Uint;
  segments: Segment[];
}
export interface SignedOrderBundle extends OrderBundle {
  originSignatures: Hex[];
  targetSignature: Hex;
}

/** The hook the 0.5.x client names as the verifying contract of its bundle domain. */
const HOOK_ADDRESS = '0x0000000000f6Ed8Be424d673c63eeFF8b9267420';

/**
 * Presents a quoted operation as the order bundle /bundles/path serves: the same ids, amounts, deadlines and
 * destination executions, so the bundle is nothing but another rendering of the quote we stored and signed. The
 * relayer may take no fee beyond what the amounts already carry (`maxFeeBps` 0).
 */
export function orderBundleOf(op: IntentOp): OrderBundle {
  return {
    sponsor: op.sponsor,
    nonce: op.nonce,
    expires: op.expires,
    segments: op.elements.map((e) => ({
      arbiter: e.arbiter,
      chainId: e.chainId,
      idsAndAmounts: e.idsAndAmounts,
      witness: {
        recipient: e.mandate.recipient,
        tokenOut: e.mandate.tokenOut,
        depositId: op.nonce,
        targetChain: e.mandate.destinationChainId,
        fillDeadline: Number(e.mandate.fillDeadline),
        execs: e.mandate.destinationOps.ops.map((x) => ({ to: x.to, value: x.value, data: x.data as Hex })),
        userOpHash: zeroHash,
        maxFeeBps: 0,
      },
    })),
  };
}

/**
 * What the client signs for the bundle we served: on the session path it first sets the first segment's
 * `userOpHash` to the v0.7 hash of its userOp on the target chain. (On the intent path it replaces the first
 * segment's `execs` by our injected executions, none, followed by its target executions, which we served already.)
 */
export function expectedSigned(served: OrderBundle, userOp?: ClientUserOp): OrderBundle {
  if (!userOp) return served;
  const [first, ...rest] = served.segments;
  const userOpHash = getUserOperationHash({
    userOperation: toUserOperation(userOp),
    chainId: Number(first.witness.targetChain),
    entryPointAddress: entryPoint07Address,
    entryPointVersion: '0.7',
  });
  return { ...served, segments: [{ ...first, witness: { ...first.witness, userOpHash } }, ...rest] };
}

/** The session path's userOp as the 0.5.4 client sends it: viem's prepared v0.7 UserOperation, its bigints as strings. */
export type ClientUserOp = UserOperation<'0.7', Uint>;

function toUserOperation(op: ClientUserOp): UserOperation<'0.7'> {
  return {
    ...op,
    nonce: BigInt(op.nonce),
    callGasLimit: BigInt(op.callGasLimit),
    verificationGasLimit: BigInt(op.verificationGasLimit),
    preVerificationGas: BigInt(op.preVerificationGas),
    maxFeePerGas: BigInt(op.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(op.maxPriorityFeePerGas),
    paymasterVerificationGasLimit:
      op.paymasterVerificationGasLimit === undefined ? undefined : BigInt(op.paymasterVerificationGasLimit),
    paymasterPostOpGasLimit: op.paymasterPostOpGasLimit === undefined ? undefined : BigInt(op.paymasterPostOpGasLimit),
  };
}

/** One canonical string per bundle: the fields the signature covers, numbers as decimal strings, addresses lowercase. */
export function canonicalBundle(b: OrderBundle): string {
  const n = (v: string | number) => BigInt(v).toString();
  const pairs = (p: Uint[][]) => p.map(([a, c]) => [n(a), n(c)]);
  return JSON.stringify([
    b.sponsor.toLowerCase(),
    n(b.nonce),
    n(b.expires),
    b.segments.map((s) => [
      s.arbiter.toLowerCase(),
      n(s.chainId),
      pairs(s.idsAndAmounts),
      [
        s.witness.recipient.toLowerCase(),
        pairs(s.witness.tokenOut),
        n(s.witness.depositId),
        n(s.witness.targetChain),
        n(s.witness.fillDeadline),
        s.witness.execs.map((x) => [x.to.toLowerCase(), n(x.value), x.data.toLowerCase()]),
        s.witness.userOpHash.toLowerCase(),
        n(s.witness.maxFeeBps),
      ],
    ]),
  ]);
}

const MULTICHAIN_COMPACT_TYPEHASH = keccak256(
  new TextEncoder().encode(
    'MultichainCompact(address sponsor,uint256 nonce,uint256 expires,Segment[] segments)Segment(address arbiter,uint256 chainId,uint256[2][] idsAndAmounts,Witness witness)Witness(address recipient,uint256[2][] tokenOut,uint256 depositId,uint256 targetChain,uint32 fillDeadline,XchainExec[] execs,bytes32 userOpHash,uint32 maxFeeBps)XchainExec(address to,uint256 value,bytes data)',
  ),
);
const SEGMENT_TYPEHASH = keccak256(
  new TextEncoder().encode(
    'Segment(address arbiter,uint256 chainId,uint256[2][] idsAndAmounts,Witness witness)Witness(address recipient,uint256[2][] tokenOut,uint256 depositId,uint256 targetChain,uint32 fillDeadline,XchainExec[] execs,bytes32 userOpHash,uint32 maxFeeBps)XchainExec(address to,uint256 value,bytes data)',
  ),
);
const WITNESS_TYPEHASH = keccak256(
  new TextEncoder().encode(
    'Witness(address recipient,uint256[2][] tokenOut,uint256 depositId,uint256 targetChain,uint32 fillDeadline,XchainExec[] execs,bytes32 userOpHash,uint32 maxFeeBps)XchainExec(address to,uint256 value,bytes data)',
  ),
);
const EXEC_TYPEHASH = keccak256(new TextEncoder().encode('XchainExec(address to,uint256 value,bytes data)'));

const b32 = (items: Hex[]) => keccak256(encodePacked(['bytes32[]'], [items]));
/** Pairs are hashed tightly packed, 64 bytes each (the client's rule, not EIP-712's nested-array encoding). */
const pairsHash = (pairs: Uint[][]) =>
  keccak256(encodePacked(['uint256[2][]'], [pairs.map(([a, b]) => [BigInt(a), BigInt(b)] as const)]));

function witnessHash(w: Witness): Hex {
  const execs = w.execs.map((x) =>
    keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }],
        [EXEC_TYPEHASH, getAddress(x.to), BigInt(x.value), keccak256(x.data)],
      ),
    ),
  );
  return keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' },
        { type: 'address' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint32' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'uint32' },
      ],
      [
        WITNESS_TYPEHASH,
        getAddress(w.recipient),
        pairsHash(w.tokenOut),
        BigInt(w.depositId),
        BigInt(w.targetChain),
        Number(w.fillDeadline),
        b32(execs),
        w.userOpHash,
        Number(w.maxFeeBps),
      ],
    ),
  );
}

/**
 * The digest the 0.5.x client signs (orchestrator/utils.js getOrderBundleHash): EIP-712 over the domain
 * {"The Compact", version "0", chainId of the first segment, HOOK}, with the client's own struct encoding.
 */
export function orderBundleHash(b: OrderBundle): Hex {
  const segments = b.segments.map((s) =>
    keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }, { type: 'bytes32' }],
        [
          SEGMENT_TYPEHASH,
          getAddress(s.arbiter),
          BigInt(s.chainId),
          pairsHash(s.idsAndAmounts),
          witnessHash(s.witness),
        ],
      ),
    ),
  );
  const struct = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes32' }],
      [MULTICHAIN_COMPACT_TYPEHASH, getAddress(b.sponsor), BigInt(b.nonce), BigInt(b.expires), b32(segments)],
    ),
  );
  const domain = domainSeparator({
    domain: {
      name: 'The Compact',
      version: '0',
      chainId: Number(b.segments[0].chainId),
      verifyingContract: HOOK_ADDRESS,
    },
  });
  return keccak256(encodePacked(['string', 'bytes32', 'bytes32'], ['\x19\x01', domain, struct]));
}
