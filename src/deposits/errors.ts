import { ApiError } from '../http/errors';

/**
 * The deposit error codes (README: Deposit processor → Error codes). A rejected or failed deposit carries one in
 * `errorCode`; a route that refuses for the same reason carries it in its error body's `code`.
 */
export const DEPOSIT_ERRORS = {
  'TOKEN-1': { retryable: false, meaning: 'token not supported on this chain' },
  'CHAIN-1': { retryable: false, meaning: 'chain not supported' },
  'BALANCE-1': { retryable: false, meaning: 'the account balance does not hold the funds (a deposit waited for them in vain; a withdrawal asks for more)' },
  'BALANCE-4': { retryable: false, meaning: 'below the minimum deposit' },
  'SESSION-1': { retryable: false, meaning: 'the account has no usable session on the source chain' },
  'COMPLIANCE-1': { retryable: false, meaning: "the project requires a verified customer for the account and there is none" },
  'BRIDGE-3': { retryable: true, meaning: 'the bridge was not filled by its deadline' },
  'BRIDGE-4': { retryable: true, meaning: 'the bridge failed' },
  'BRIDGE-6': { retryable: false, meaning: 'no route to the target' },
  'ACCOUNT-1': { retryable: false, meaning: 'account not registered' },
  'WITHDRAW-1': { retryable: false, meaning: "the withdrawal's signed deadline has passed" },
  'RECOVERY-1': { retryable: false, meaning: 'the deposit is not recoverable (not rejected: in progress, completed, refunding to its sender or refunded)' },
} as const;

export type DepositErrorCode = keyof typeof DEPOSIT_ERRORS;

export interface Detail { message: string; path: (string | number)[]; code: string }

/** The deposit-processing error body: `{error, code?, details}`. */
export const depositError = (status: number, error: string, code: DepositErrorCode | undefined, details: Detail[], operatorHint?: string) =>
  new ApiError(status, error, { ...(code ? { code } : {}), details, operatorHint });
