import { DomainError, type DepositErrorCode, type ErrorCode } from '../errors';
import codes from './error-codes.json';

export type { DepositErrorCode };

/**
 * The deposit error codes, a table of data in `error-codes.json` (docs/deposit-processor.md, Error codes). A
 * rejected or failed deposit carries one in `errorCode`; a route that refuses for the same reason carries it in its
 * error body's `code`.
 */
export const DEPOSIT_ERRORS: Record<DepositErrorCode, { retryable: boolean; meaning: string }> = codes;

export interface Detail {
  message: string;
  path: (string | number)[];
  code: string;
}

/** A deposit-processing refusal: its error body is `{error, code?, details}`, `code` the deposit code (`reason`). */
export const depositError = (
  code: ErrorCode,
  error: string,
  reason: DepositErrorCode | undefined,
  details: Detail[],
  operatorHint?: string,
) =>
  new DomainError(code, error, { details, ...(reason ? { reason } : {}), ...(operatorHint ? { operatorHint } : {}) });
