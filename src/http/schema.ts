import Ajv, { SchemaObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** Bodies: unknown fields are ignored (left in place, never read), as the published clients send extra keys. */
export const bodyAjv = addFormats(new Ajv({ allErrors: true, useDefaults: true, discriminator: true, strict: true, strictRequired: false }));
/** Query strings and path params arrive as strings (or arrays of strings); coerce them to the declared types. */
export const paramAjv = addFormats(new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, strict: true }));

export type Schema = SchemaObject;

export const patterns = {
  address: '^0x[0-9a-fA-F]{40}$',
  uint256: '^(0|[1-9][0-9]{0,77})$',
  hex: '^0x([0-9a-fA-F]{2})*$',
  bytes12: '^0x[0-9a-fA-F]{24}$',
  /** at most 15 digits, so every chain id it admits is an exact JS number */
  caip2: '^eip155:[1-9][0-9]{0,14}$',
};

export const caip2: Schema = { type: 'string', pattern: patterns.caip2, description: 'CAIP-2 chain id, eip155:<chainId>' };
export const address: Schema = { type: 'string', pattern: patterns.address, description: '20-byte hex address' };
/** JSON numbers are accepted only while exact: larger values must come as decimal strings. */
export const safeUint = (minimum = 0): Schema => ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER });
/** An RFC 3339 date-time PostgreSQL can store (years 1970 to 9999): `format` alone admits year 0000. */
export const dateTime: Schema = { type: 'string', format: 'date-time', pattern: '^(19[7-9][0-9]|[2-9][0-9]{3})-' };
export const uint256: Schema = { type: 'string', pattern: patterns.uint256, maxLength: 78, description: 'decimal string' };

export function compile(ajv: Ajv, schema: Schema): ValidateFunction {
  return ajv.compile(schema);
}
