import type { ErrorObject } from 'ajv';
import { LIMITS, type InputProblem } from './limits';

export interface ErrorEntry { message: string; context?: Record<string, unknown> }

/**
 * An error a client is meant to see. `message` is matched verbatim by the published clients (docs/api.md, Errors), so
 * handlers use the exact strings they map; `errors` defaults to one entry with the same text. `operatorHint` is what
 * the deployment's operator should do about it (a setting to make): logged with the trace id, never sent.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: { errors?: ErrorEntry[]; code?: string; details?: unknown; body?: Record<string, unknown>; headers?: Record<string, string>; operatorHint?: string } = {},
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

interface Problem { field: string; message: string; path: string; keyword: string; params?: unknown }

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
  return new ApiError(400, more > 0 ? `${entries[0].message} (and ${more} more problems)` : entries[0].message, {
    errors: entries,
    code: 'VALIDATION_ERROR',
    details: shown.map((p) => ({ message: p.message, path: [location, ...p.field.split('.').filter(Boolean)], code: p.keyword })),
  });
}

/** Turns ajv errors into one 400 (see problemsError). */
export function validationError(location: Location, errors: ErrorObject[]): ApiError {
  return problemsError(location, errors.map((e) => ({ field: fieldPath(e), message: e.message ?? 'is invalid', path: e.instancePath || '/', keyword: e.keyword, params: e.params })));
}

/** A value found by scanValue (src/http/limits.ts): refused in the same shape as a schema violation. */
export function inputProblemError(location: Location, problem: InputProblem): ApiError {
  return problemsError(location, [{ field: problem.path.join('.'), message: problem.message, path: `/${problem.path.join('/')}`, keyword: problem.keyword }]);
}

function fieldPath(e: ErrorObject): string {
  const base = e.instancePath.split('/').filter(Boolean).join('.');
  // The property a `required` or `additionalProperties` failure is about, which ajv keeps in its params.
  const named = e.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty
    : e.keyword === 'additionalProperties' ? (e.params as { additionalProperty: string }).additionalProperty : undefined;
  return [base, named].filter(Boolean).join('.');
}
