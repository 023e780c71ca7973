import { hashTypedData, keccak256, pad, slice, toHex, type TypedDataDefinition } from 'viem';
import { compactDomain, LOCK } from '../compact/eip712';
import type { Element, IntentOp } from './types';

/** Domains and type sets exactly as @rhinestone/sdk 1.x builds them (execution/compact.js, permit2.js, singleChainOps.js). */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
export const DEFAULT_COMPACT_SIGNING_CONTRACT = '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f';

const MANDATE_TYPES = {
  Mandate: [
    { name: 'target', type: 'Target' },
    { name: 'minGas', type: 'uint128' },
    { name: 'originOps', type: 'Op' },
    { name: 'destOps', type: 'Op' },
    { name: 'q', type: 'bytes32' },
  ],
  Target: [
    { name: 'recipient', type: 'address' },
    { name: 'tokenOut', type: 'Token[]' },
    { name: 'targetChain', type: 'uint256' },
    { name: 'fillExpiry', type: 'uint256' },
  ],
  Token: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  Op: [
    { name: 'vt', type: 'bytes32' },
    { name: 'ops', type: 'Ops[]' },
  ],
  Ops: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
} as const;

/** Ids are padded to 32 bytes before slicing (the client does not pad; it relies on a non-zero top byte). */
const id32 = (id: string) => pad(toHex(BigInt(id)), { size: 32 });
export const lockTagOf = (id: string) => slice(id32(id), 0, 12);
export const tokenOf = (id: string) => slice(id32(id), 12, 32);

function mandate(element: Element) {
  const m = element.mandate;
  return {
    target: {
      recipient: m.recipient,
      tokenOut: m.tokenOut.map(([id, amount]) => ({ token: tokenOf(id), amount: BigInt(amount) })),
      targetChain: BigInt(m.destinationChainId),
      fillExpiry: BigInt(m.fillDeadline),
    },
    minGas: BigInt(m.minGas),
    originOps: m.preClaimOps,
    destOps: m.destinationOps,
    q: keccak256(m.qualifier.encodedVal),
  };
}

export function compactTypedData(op: Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'elements'>, verifyingContract: string) {
  return {
    domain: compactDomain(Number(op.elements[0].chainId), verifyingContract),
    types: {
      MultichainCompact: [
        { name: 'sponsor', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'expires', type: 'uint256' },
        { name: 'elements', type: 'Element[]' },
      ],
      Element: [
        { name: 'arbiter', type: 'address' },
        { name: 'chainId', type: 'uint256' },
        { name: 'commitments', type: 'Lock[]' },
        { name: 'mandate', type: 'Mandate' },
      ],
      Lock: LOCK,
      ...MANDATE_TYPES,
    },
    primaryType: 'MultichainCompact',
    message: {
      sponsor: op.sponsor,
      nonce: BigInt(op.nonce),
      expires: BigInt(op.expires),
      elements: op.elements.map((e) => ({
        arbiter: e.arbiter,
        chainId: BigInt(e.chainId),
        commitments: e.idsAndAmounts.map(([id, amount]) => ({ lockTag: lockTagOf(id), token: tokenOf(id), amount: BigInt(amount) })),
        mandate: mandate(e),
      })),
    },
  } as const satisfies TypedDataDefinition;
}

export function permit2TypedData(element: Element, nonce: string, expires: string) {
  return {
    domain: { name: 'Permit2', chainId: Number(element.chainId), verifyingContract: PERMIT2_ADDRESS },
    types: {
      TokenPermissions: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
      ...MANDATE_TYPES,
      PermitBatchWitnessTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions[]' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
        { name: 'mandate', type: 'Mandate' },
      ],
    },
    primaryType: 'PermitBatchWitnessTransferFrom',
    message: {
      permitted: element.idsAndAmounts.map(([id, amount]) => ({ token: tokenOf(id), amount: BigInt(amount) })),
      spender: element.arbiter,
      nonce: BigInt(nonce),
      deadline: BigInt(expires),
      mandate: mandate(element),
    },
  } as const satisfies TypedDataDefinition;
}

/** What each origin signature of an intent covers, chosen for the whole intent the way the client chooses it. */
export function originTypedData(op: Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'elements'>, compactContract: string): TypedDataDefinition[] {
  const permit2 = op.elements.some((e) => e.mandate.qualifier.settlementContext.fundingMethod === 'PERMIT2');
  if (permit2) return op.elements.map((e) => permit2TypedData(e, op.nonce, op.expires) as TypedDataDefinition);
  const compact = compactTypedData(op, compactContract) as TypedDataDefinition; // one Compact covers every element
  return op.elements.map(() => compact);
}

export const digestOf = (typedData: TypedDataDefinition) => hashTypedData(typedData);
