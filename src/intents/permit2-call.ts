import { hashStruct, type TypedData } from 'viem';
import { permit2TypedData } from './typed-data';
import type { Element } from './types';

/** What Permit2 prefixes to the caller's witnessTypeString to get the witness typehash. */
export const PERMIT2_BATCH_WITNESS_STUB =
  'PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,';

/** EIP-712 encodeType: the primary type, then every type it references, sorted by name (viem does not export it). */
function encodeType(types: TypedData, primaryType: string): string {
  const deps = new Set<string>();
  const visit = (type: string) => {
    const base = type.replace(/(\[\d*\])+$/, '');
    if (deps.has(base) || !types[base]) return;
    deps.add(base);
    for (const member of types[base]) visit(member.type);
  };
  visit(primaryType);
  deps.delete(primaryType);
  return [primaryType, ...[...deps].sort()]
    .map((t) => `${t}(${types[t].map((m) => `${m.type} ${m.name}`).join(',')})`)
    .join('');
}

/**
 * The arguments of Permit2's batch `permitWitnessTransferFrom` for an element funded by Permit2, taken from the same
 * typed data the sponsor signs (permit2TypedData), so the digest Permit2 rebuilds is the one signed. The call must
 * come from element.arbiter (the signed spender); the transfer details and owner are the caller's.
 */
export function permit2WitnessCall(element: Element, nonce: string, expires: string) {
  const { types: typeSet, message } = permit2TypedData(element, nonce, expires);
  const types: TypedData = typeSet; // the Mandate's types are spread in from a record: widen to name them
  const encoded = encodeType(types, 'PermitBatchWitnessTransferFrom');
  if (!encoded.startsWith(PERMIT2_BATCH_WITNESS_STUB)) throw new Error(`unexpected Permit2 type: ${encoded}`);
  return {
    permit: { permitted: message.permitted, nonce: message.nonce, deadline: message.deadline },
    witness: hashStruct({ types, primaryType: 'Mandate', data: message.mandate }),
    witnessTypeString: encoded.slice(PERMIT2_BATCH_WITNESS_STUB.length),
  };
}
