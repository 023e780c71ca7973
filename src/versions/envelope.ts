import type { ApiError } from '../http/errors';

/**
 * The current version's error codes and their statuses (docs/api.md, Error codes (blanc)). Clients dispatch on
 * `code`; the list may grow, and clients send codes they do not know down their generic path.
 */
export const ERROR_CODES = {
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
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

const BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED', 408: 'REQUEST_TIMEOUT', 409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 429: 'TOO_MANY_REQUESTS', 503: 'SERVICE_UNAVAILABLE',
};

const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && code in ERROR_CODES;

/** The code an error carries, else the one its status stands for; anything unnamed is INTERNAL. */
export function errorCode(err: ApiError): ErrorCode {
  if (isErrorCode(err.extra.code)) return err.extra.code;
  return BY_STATUS[err.status] ?? (err.status < 500 ? 'VALIDATION_ERROR' : 'INTERNAL');
}

/** `{code, message, traceId, details?}`: every non-2xx answer under 2026-04.blanc. */
export function envelope(err: ApiError, traceId: string): Record<string, unknown> {
  return { code: errorCode(err), message: err.message, traceId, ...(err.extra.details !== undefined ? { details: err.extra.details } : {}) };
}
