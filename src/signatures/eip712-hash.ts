import {
  getTypesForEIP712Domain,
  hexToBytes,
  isAddress,
  keccak256,
  bytesToHex,
  stringToBytes,
  type Hex,
  type TypedDataDefinition,
} from 'viem';

/**
 * EIP-712 digests, the bytes viem's hashTypedData computes, for the request path: a submit hashes the sponsor's
 * MultichainCompact, about twenty keccak256 calls in JavaScript, and viem spends about as much again hashing each
 * struct's type string anew for every struct value and encoding each struct as ABI hex text. Here a type set's type
 * hashes are computed once (cached by the type set's object: callers keep their `types` constant), each struct is
 * encoded straight into bytes (every EIP-712 member is one 32-byte word), and a domain's separator is kept. Values
 * are checked as viem's encoder checks them (address form, integer range, fixed bytes size); anything else throws.
 */

type Types = Record<string, readonly { name: string; type: string }[]>;

const typeHashes = new WeakMap<Types, Map<string, Uint8Array>>();

/** The struct types `type` refers to, itself included (array suffixes dropped). */
function dependencies(types: Types, type: string, found = new Set<string>()): Set<string> {
  const base = type.replace(/(\[\d*\])+$/, '');
  if (found.has(base) || !types[base]) return found;
  found.add(base);
  for (const f of types[base]) dependencies(types, f.type, found);
  return found;
}

/** `Primary(members)` followed by every struct it refers to, sorted by name (EIP-712's encodeType). */
function encodeType(types: Types, primaryType: string): string {
  const deps = dependencies(types, primaryType);
  deps.delete(primaryType);
  return [primaryType, ...[...deps].sort()]
    .map((t) => `${t}(${types[t].map((f) => `${f.type} ${f.name}`).join(',')})`)
    .join('');
}

function typeHash(types: Types, primaryType: string): Uint8Array {
  let known = typeHashes.get(types);
  if (!known) typeHashes.set(types, (known = new Map()));
  let hash = known.get(primaryType);
  if (!hash) {
    hash = keccak256(stringToBytes(encodeType(types, primaryType)), 'bytes');
    known.set(primaryType, hash);
  }
  return hash;
}

const bytesOf = (value: unknown): Uint8Array => (value instanceof Uint8Array ? value : hexToBytes(value as Hex));

/** Writes `type`'s encoding of `value` as the 32-byte word at `at` of `out`. */
function encodeWord(types: Types, type: string, value: unknown, out: Uint8Array, at: number): void {
  if (types[type]) return out.set(structHash(types, type, value as Record<string, unknown>), at);
  if (type === 'bytes') return out.set(keccak256(bytesOf(value), 'bytes'), at);
  if (type === 'string') return out.set(keccak256(stringToBytes(value as string), 'bytes'), at);
  if (type.endsWith(']')) {
    const item = type.slice(0, type.lastIndexOf('['));
    const items = value as unknown[];
    const words = new Uint8Array(32 * items.length);
    items.forEach((v, i) => encodeWord(types, item, v, words, 32 * i));
    return out.set(keccak256(words, 'bytes'), at);
  }
  if (type === 'address') {
    if (typeof value !== 'string' || !isAddress(value)) throw new Error(`invalid address ${value}`);
    return out.set(hexToBytes(value), at + 12);
  }
  if (type === 'bool') {
    out[at + 31] = value ? 1 : 0;
    return;
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    const bits = BigInt(int[2] || 256);
    const n = BigInt(value as bigint);
    const [min, max] = int[1] ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
    if (n < min || n > max) throw new Error(`${n} out of range for ${type}`);
    return out.set(hexToBytes(`0x${BigInt.asUintN(256, n).toString(16).padStart(64, '0')}`), at);
  }
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed) {
    const bytes = bytesOf(value);
    if (bytes.length !== Number(fixed[1])) throw new Error(`${type} of ${bytes.length} bytes`);
    return out.set(bytes, at);
  }
  throw new Error(`unsupported EIP-712 type ${type}`);
}

function structHash(types: Types, primaryType: string, data: Record<string, unknown>): Uint8Array {
  const fields = types[primaryType];
  const encoded = new Uint8Array(32 * (fields.length + 1));
  encoded.set(typeHash(types, primaryType), 0);
  fields.forEach((f, i) => encodeWord(types, f.type, data[f.name], encoded, 32 * (i + 1)));
  return keccak256(encoded, 'bytes');
}

/** Domain separators by domain: a handful (one per chain and contract the orchestrator signs for). */
const separators = new Map<string, Uint8Array>();
const MAX_SEPARATORS = 1024;

function domainSeparator(domain: NonNullable<TypedDataDefinition['domain']>): Uint8Array {
  const key = JSON.stringify([
    domain.name,
    domain.version,
    domain.chainId?.toString(),
    domain.verifyingContract,
    domain.salt,
  ]);
  let separator = separators.get(key);
  if (!separator) {
    if (separators.size >= MAX_SEPARATORS) separators.clear();
    separator = structHash({ EIP712Domain: getTypesForEIP712Domain({ domain }) }, 'EIP712Domain', domain);
    separators.set(key, separator);
  }
  return separator;
}

/** The EIP-712 digest of `typedData`, equal to viem's hashTypedData (its `types` object should be a constant). */
export function typedDataDigest(typedData: TypedDataDefinition): Hex {
  const { domain = {}, primaryType, message } = typedData as TypedDataDefinition & { primaryType: string };
  const types = typedData.types as Types;
  const out = new Uint8Array(primaryType === 'EIP712Domain' ? 34 : 66);
  out.set([0x19, 0x01]);
  out.set(domainSeparator(domain), 2);
  if (primaryType !== 'EIP712Domain') out.set(structHash(types, primaryType, message as Record<string, unknown>), 34);
  return bytesToHex(keccak256(out, 'bytes'));
}
