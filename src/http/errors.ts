import type { ErrorObject } from 'ajv';
import type { ErrorCode } from '../errors';
import { LIMITS, type InputProblem } from './limits';

export interface ErrorEntry {
  message: string;
  context?: Record<string, unknown>;
}

/** Codes only the edge raises: about the request itself (its method, pace, size, type, headers), never the domain's. */
export type EdgeCode =
  'METHOD_NOT_ALLOWED' | 'REQUEST_TIMEOUT' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'HEADERS_TOO_LARGE';

/** The HTTP status of every error code: the one place where a code meets HTTP. */
export const STATUS: Record<ErrorCode | EdgeCode, number> = {
  VALIDATION_ERROR: 400,
  UNSUPPORTED_CHAIN: 400,
  UNSUPPORTED_TOKEN: 400,
  NO_ROUTE: 400,
  INSUFFICIENT_BALANCE: 400,
  INVALID_SIGNATURE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  INSUFFICIENT_LIQUIDITY: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  PROVIDER_FAILED: 502,
  SERVICE_UNAVAILABLE: 503,
  DISABLED: 503,
};

/**
 * The edge's own failures: the request itself refused (validation, authentication, rate limits, media type, an
 * unknown route) or not served in time. `message` is matched verbatim by the published clients (docs/api.md, Errors);
 * `errors` defaults to one entry with the same text. What the domain refuses is a DomainError (src/errors.ts).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: { errors?: ErrorEntry[]; code?: string; details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message: string) => new ApiError(STATUS.UNAUTHORIZED, message);

/** The `x-api-version` failure: always the dated-version envelope `{code, message, traceId, details?}`. */
export class VersionError extends ApiError {
  constructor(message: string, details?: unknown) {
    super(STATUS.VALIDATION_ERROR, message, { code: 'VALIDATION_ERROR', details });
  }
}

export type Location = 'body' | 'query' | 'params' | 'headers';

interface Problem {
  field: string;
  message: string;
  path: string;
  keyword: string;
  params?: unknown;
}

/**
 * One 400 whose message names the first problem and whose entries carry the first LIMITS.details of them; the
 * message counts the rest, so a flood of bad items answers in a few hundred bytes.
 */
function problemsError(location: Location, problems: Problem[]): ApiError {
  const shown = problems.slice(0, LIMITS.details);
  const entries = shown.map((p) => ({
    message: `${location}${p.field ? '.' + p.field : ''} ${p.message}`,
    context: { location, path: p.path, keyword: p.keyword, ...(p.params !== undefined ? { params: p.params } : {}) },
  }));
  const more = problems.length - shown.length;
  return new ApiError(
    STATUS.VALIDATION_ERROR,
    more > 0 ? `${entries[0].message} (and ${more} more problems)` : entries[0].message,
    {
      errors: entries,
      code: 'VALIDATION_ERROR',
      details: shown.map((p) => ({
        message: p.message,
        path: [location, ...p.field.split('.').filter(Boolean)],
        code: p.keyword,
      })),
    },
  );
}

/** Turns ajv errors into one 400 (see problemsError). */
export function validationError(location: Location, errors: ErrorObject[]): ApiError {
  return problemsError(
    location,
    ownBranch(errors).map((e) => ({
      field: fieldPath(e),
      message: unsafeNumber(e) ? UNSAFE_NUMBER : (e.message ?? 'is invalid'),
      path: e.instancePath || '/',
      keyword: e.keyword,
      params: e.params,
    })),
  );
}

/** A value found by scanValue (src/http/limits.ts): refused in the same shape as a schema violation. */
export function inputProblemError(location: Location, problem: InputProblem): ApiError {
  return problemsError(location, [
    {
      field: problem.path.join('.'),
      message: problem.message,
      path: `/${problem.path.join('/')}`,
      keyword: problem.keyword,
    },
  ]);
}

const UNSAFE_NUMBER = 'is a JSON number past 2^53, which loses digits when parsed: send it as a decimal string';
/** A JSON number refused for being past the exact range (safeUint's maximum). */
const unsafeNumber = (e: ErrorObject) =>
  e.keyword === 'maximum' && (e.params as { limit?: number }).limit === Number.MAX_SAFE_INTEGER;

/**
 * Of a value that failed an anyOf (a string or a number, say), the problems of the branch of its own type: the other
 * branches' "must be <type>" and the anyOf's own line say nothing a sender can act on. A value of no branch's type
 * gets one line naming them all.
 */
function ownBranch(errors: ErrorObject[]): ErrorObject[] {
  const failed = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  const noise = (e: ErrorObject) => failed.has(e.instancePath) && ['anyOf', 'type'].includes(e.keyword);
  const specific = new Set(errors.filter((e) => failed.has(e.instancePath) && !noise(e)).map((e) => e.instancePath));
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (!noise(e)) out.push(e);
    else if (!specific.has(e.instancePath) && e.keyword === 'anyOf') {
      const types = errors
        .filter((t) => t.instancePath === e.instancePath && t.keyword === 'type')
        .map((t) => (t.params as { type: string }).type);
      out.push({ ...e, keyword: 'type', message: `must be ${[...new Set(types)].join(' or ')}` });
    }
  }
  return out;
}

function fieldPath(e: ErrorObject): string {
  const base = e.instancePath.split('/').filter(Boolean).join('.');
  // The property a `required` or `additionalProperties` failure is about, which ajv keeps in its params.
  const named =
    e.keyword === 'required'
      ? (e.params as { missingProperty: string }).missingProperty
      : e.keyword === 'additionalProperties'
        ? (e.params as { additionalProperty: string }).additionalProperty
        : undefined;
  return [base, named].filter(Boolean).join('.');
}
