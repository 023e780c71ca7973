import { ApiError } from '../http/errors';
import codes from './error-codes.json';

/**
 * The deposit error codes, a table of data in `error-codes.json` (docs/deposit-processor.md, Error codes). A
 * rejected or failed deposit carries one in `errorCode`; a route that refuses for the same reason carries it in its
 * error body's `code`.
 */
export const DEPOSIT_ERRORS: Record<DepositErrorCode, { retryable: boolean; meaning: string }> = codes;

export type DepositErrorCode = keyof typeof codes;

export interface Detail { message: string; path: (string | number)[]; code: string }

/** The deposit-processing error body: `{error, code?, details}`. */
export const depositError = (status: number, error: string, code: DepositErrorCode | undefined, details: Detail[], operatorHint?: string) =>
  new ApiError(status, error, { ...(code ? { code } : {}), details, operatorHint });
