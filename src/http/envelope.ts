import { DomainError } from '../errors';
import { ApiError, STATUS } from './errors';

/** The current version's error codes, in the order docs/api.md and the OpenAPI document list them. */
const CODES = [
  'VALIDATION_ERROR',
  'UNSUPPORTED_CHAIN',
  'UNSUPPORTED_TOKEN',
  'NO_ROUTE',
  'INSUFFICIENT_BALANCE',
  'INVALID_SIGNATURE',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'INSUFFICIENT_LIQUIDITY',
  'TOO_MANY_REQUESTS',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
] as const;
export type EnvelopeCode = (typeof CODES)[number];

/**
 * The current version's error codes and their statuses (docs/api.md, Error codes (blanc)). Clients dispatch on
 * `code`; the list may grow, and clients send codes they do not know down their generic path.
 */
export const ERROR_CODES = Object.fromEntries(CODES.map((c) => [c, STATUS[c]])) as Record<EnvelopeCode, number>;

const BY_STATUS: Record<number, EnvelopeCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

const isEnvelopeCode = (code: unknown): code is EnvelopeCode => typeof code === 'string' && code in ERROR_CODES;

/** The code an error carries when the version publishes it, else the one its status stands for; anything unnamed is INTERNAL. */
export function errorCode(err: DomainError | ApiError): EnvelopeCode {
  const [code, status] = err instanceof DomainError ? [err.code, STATUS[err.code]] : [err.extra.code, err.status];
  if (isEnvelopeCode(code)) return code;
  return BY_STATUS[status] ?? (status < 500 ? 'VALIDATION_ERROR' : 'INTERNAL');
}

/** `{code, message, traceId, details?}`: every non-2xx answer under 2026-04.blanc. */
export function envelope(err: DomainError | ApiError, traceId: string): Record<string, unknown> {
  const details = err instanceof DomainError ? err.detail.details : err.extra.details;
  return { code: errorCode(err), message: err.message, traceId, ...(details !== undefined ? { details } : {}) };
}
