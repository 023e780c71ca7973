import Ajv, { SchemaObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

const bodyOptions = { useDefaults: true, discriminator: true, strict: true, strictRequired: false } as const;
/** Query strings and path params arrive as strings (or arrays of strings); coerce them to the declared types. */
const paramOptions = { coerceTypes: 'array', useDefaults: true, strict: true } as const;
const TWO_256 = 1n << 256n;
const UINT256_DIGITS = TWO_256.toString().length;

function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  // A decimal string of at most 78 digits may still be 2^256 or more: no uint256 holds it. Only one of 78 characters
  // can be (2^256 has 78 digits): shorter ones, most amounts, are not converted.
  ajv.addFormat('uint256', {
    type: 'string',
    validate: (s: string) => s.length < UINT256_DIGITS || !/^[0-9]+$/.test(s) || BigInt(s) < TWO_256,
  });
  return ajv;
}

/**
 * Each location has two validators: the first stops at the first problem (cheap whatever the input), and the
 * second, run only on small failing inputs, lists every problem (src/http/route.ts). Bodies: unknown fields are
 * ignored (left in place, never read), as the published clients send extra keys.
 */
export const bodyAjv = withFormats(new Ajv({ ...bodyOptions, allErrors: true }));
export const bodyFirstErrorAjv = withFormats(new Ajv({ ...bodyOptions, allErrors: false }));
export const paramAjv = withFormats(new Ajv({ ...paramOptions, allErrors: true }));
export const paramFirstErrorAjv = withFormats(new Ajv({ ...paramOptions, allErrors: false }));

export type Schema = SchemaObject;

export const patterns = {
  address: '^0x[0-9a-fA-F]{40}$',
  uint256: '^(0|[1-9][0-9]{0,77})$',
  /** a positive uint256 in decimal, no leading zeros (`format: 'uint256'` bounds it below 2^256) */
  amount: '^[1-9][0-9]{0,77}$',
  hex: '^0x([0-9a-fA-F]{2})*$',
  bytes32: '^0x[0-9a-fA-F]{64}$',
  bytes12: '^0x[0-9a-fA-F]{24}$',
  /** at most 15 digits, so every chain id it admits is an exact JS number */
  caip2: '^eip155:[1-9][0-9]{0,14}$',
} as const;

/**
 * The TypeScript type of what a schema admits once ajv has validated it: declared `as const`, a schema is its own
 * type's single source. Defaulted properties are present (ajv fills them in); a schema that leaves the set of
 * properties open gives an index signature of `unknown`; a string whose pattern requires the `0x` prefix is
 * `0x${string}` (viem's `Hex`). No schema (a route without a body), or one typed only as `Schema`: `unknown`.
 */
export type Infer<S> = string extends keyof S
  ? unknown
  : S extends JSONSchema
    ? FromSchema<S, { deserialize: [{ pattern: { pattern: `^0x${string}` }; output: `0x${string}` }] }>
    : unknown;

/**
 * What a response schema asks of the body a handler answers with: the properties it declares, of the types it
 * declares (what a schema leaves open, the handler may add; a hex string is any string).
 */
export type Promised<S> = string extends keyof S ? unknown : S extends JSONSchema ? Declared<FromSchema<S>> : unknown;
type Declared<T> = T extends readonly (infer E)[]
  ? Declared<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Declared<T[K]> }
    : T;

export const caip2 = {
  type: 'string',
  pattern: patterns.caip2,
  description: 'CAIP-2 chain id, eip155:<chainId>',
} as const;
export const address = { type: 'string', pattern: patterns.address, description: '20-byte hex address' } as const;
/** Bytes as 0x-prefixed hex, any length (calldata, signatures). */
export const hex = { type: 'string', pattern: patterns.hex } as const;
/** 32 bytes as 0x-prefixed hex (hashes). */
export const bytes32 = { type: 'string', pattern: patterns.bytes32 } as const;
/** JSON numbers are accepted only while exact: larger values must come as decimal strings. */
export const safeUint = (minimum = 0) => ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER }) as const;
/** An RFC 3339 date-time PostgreSQL can store (years 1970 to 9999): `format` alone admits year 0000. */
export const dateTime = { type: 'string', format: 'date-time', pattern: '^(19[7-9][0-9]|[2-9][0-9]{3})-' } as const;
export const uint256 = {
  type: 'string',
  pattern: patterns.uint256,
  format: 'uint256',
  maxLength: 78,
  description: 'decimal string below 2^256',
} as const;
/**
 * The one rule for a token amount a request names, on every host (quotes, splits, bundles, withdrawals, the deposit
 * processor's): a positive integer below 2^256 as a decimal string, which is what the published clients send (they
 * turn every bigint into its base-10 string). Zero asks for nothing, so it is refused rather than quoted; a JSON
 * number is refused too (the wire format is the string, and a number past 2^53 is rounded before anyone reads it).
 */
export const amount = {
  type: 'string',
  pattern: patterns.amount,
  format: 'uint256',
  maxLength: 78,
  description: 'token amount in base units: a positive decimal string below 2^256 (JSON numbers are refused)',
} as const;
/**
 * A token amount where the spec types it as a JSON number (POST /withdrawals `amount` integer (int64), POST
 * /batch-withdrawals `transfers[].amount` number): that number while exact (1 to 2^53 - 1), or the decimal string of
 * the one rule above. A number past 2^53 has lost digits in JSON.parse before anyone reads it: refused, with a word
 * to send it as a string (src/http/errors.ts).
 */
export const numberAmount = {
  anyOf: [amount, safeUint(1)],
  description: 'token amount in base units: a JSON integer up to 2^53 - 1, or a positive decimal string below 2^256',
} as const;
/** A uint256 other than a token amount (gas, call values, nonces, ids of signed structs): a decimal string, or a JSON number while exact. */
export const uintValue = { anyOf: [uint256, safeUint()] } as const;
/** A token (address, or a symbol the registry knows) and the amount of it an intent or bundle requests (none: as much as possible). */
export const tokenRequest = {
  type: 'object',
  required: ['tokenAddress'],
  properties: { tokenAddress: { type: 'string', minLength: 1 }, amount },
} as const;
/** One EVM call of an intent or bundle: `to`, with `value` and `data` defaulting to none. */
export const execution = {
  type: 'object',
  required: ['to'],
  properties: { to: address, value: { ...uintValue, default: '0' }, data: { ...hex, default: '0x' } },
} as const;
