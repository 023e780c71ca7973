import { hashTypedData, keccak256, pad, slice, toHex, type TypedDataDefinition } from 'viem';
import { compactDomain, LOCK } from '../compact/eip712';
import type { Element, IntentOp } from './types';
import { members } from '../signatures/eip712-members';

/** Domains and type sets exactly as @rhinestone/sdk 1.x builds them (execution/compact.js, permit2.js, singleChainOps.js). */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3';

/**
 * The Mandate witness as an arbiter names it to The Compact (a claim's `witnessTypestring`: the members and the
 * nested types, without the leading `Mandate(` and the final `)`). The type set is read from it, so the two agree.
 */
export const MANDATE_WITNESS =
  'Target target,uint128 minGas,Op originOps,Op destOps,bytes32 q)Op(bytes32 vt,Ops[] ops)Ops(address to,uint256 value,bytes data)Target(address recipient,Token[] tokenOut,uint256 targetChain,uint256 fillExpiry)Token(address token,uint256 amount';
const MANDATE_TYPES = Object.fromEntries(
  [...`Mandate(${MANDATE_WITNESS})`.matchAll(/(\w+)\(([^)]*)\)/g)].map(([, name, body]) => [name, members(body)]),
);

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

/** The MultichainCompact of an intent with its Mandate witness: what the sponsor signs and every claim of it hashes. */
export function multichainCompact(op: Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'elements'>) {
  return {
    types: {
      MultichainCompact: members('address sponsor,uint256 nonce,uint256 expires,Element[] elements'),
      Element: members('address arbiter,uint256 chainId,Lock[] commitments,Mandate mandate'),
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
        commitments: e.idsAndAmounts.map(([id, amount]) => ({
          lockTag: lockTagOf(id),
          token: tokenOf(id),
          amount: BigInt(amount),
        })),
        mandate: mandate(e),
      })),
    },
  } as const;
}

/** The MultichainCompact as the sponsor signs it: in The Compact's domain of the first element's chain (the notarized chain). */
export function compactTypedData(
  op: Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'elements'>,
  verifyingContract: string,
) {
  return {
    domain: compactDomain(Number(op.elements[0].chainId), verifyingContract),
    ...multichainCompact(op),
  } as const satisfies TypedDataDefinition;
}

export function permit2TypedData(element: Element, nonce: string, expires: string) {
  return {
    domain: { name: 'Permit2', chainId: Number(element.chainId), verifyingContract: PERMIT2_ADDRESS },
    types: {
      TokenPermissions: members('address token,uint256 amount'),
      ...MANDATE_TYPES,
      PermitBatchWitnessTransferFrom: members(
        'TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,Mandate mandate',
      ),
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
export function originTypedData(
  op: Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'elements'>,
  compactContract: string,
): TypedDataDefinition[] {
  const permit2 = op.elements.some((e) => e.mandate.qualifier.settlementContext.fundingMethod === 'PERMIT2');
  if (permit2) return op.elements.map((e) => permit2TypedData(e, op.nonce, op.expires) as TypedDataDefinition);
  const compact = compactTypedData(op, compactContract) as TypedDataDefinition; // one Compact covers every element
  return op.elements.map(() => compact);
}

export const digestOf = (typedData: TypedDataDefinition) => hashTypedData(typedData);
