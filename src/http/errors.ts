import type { ErrorObject } from 'ajv';

export interface ErrorEntry { message: string; context?: Record<string, unknown> }

/**
 * An error a client is meant to see. `message` is matched verbatim by the published clients (see README), so
 * handlers use the exact strings they map; `errors` defaults to one entry with the same text.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: { errors?: ErrorEntry[]; code?: string; details?: unknown; body?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export const unauthorized = (message: string) => new ApiError(401, message);
export const badRequest = (message: string, context?: Record<string, unknown>) =>
  new ApiError(400, message, { errors: [{ message, context }] });

/** The `x-api-version` failure: always the dated-version envelope `{code, message, traceId, details?}`. */
export class VersionError extends ApiError {
  constructor(message: string, details?: unknown) {
    super(400, message, { code: 'VALIDATION_ERROR', details });
  }
}

export type Location = 'body' | 'query' | 'params' | 'headers';

/** Turns ajv errors into one 400 whose message names the first problem and whose entries carry all of them. */
export function validationError(location: Location, errors: ErrorObject[]): ApiError {
  const entries = errors.map((e) => {
    const field = fieldPath(e);
    return {
      message: `${location}${field ? '.' + field : ''} ${e.message ?? 'is invalid'}`,
      context: { location, path: e.instancePath || '/', keyword: e.keyword, params: e.params },
    };
  });
  return new ApiError(400, entries[0].message, {
    errors: entries,
    code: 'VALIDATION_ERROR',
    details: errors.map((e) => ({
      message: e.message ?? 'is invalid',
      path: [location, ...fieldPath(e).split('.').filter(Boolean)],
      code: e.keyword,
    })),
  });
}

function fieldPath(e: ErrorObject): string {
  const base = e.instancePath.split('/').filter(Boolean).join('.');
  const missing = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
  return [base, missing].filter(Boolean).join('.');
}
