import { defineSignal } from '@temporalio/workflow';

/**
 * The deposit and refund workflows' contract (workflows/deposit.ts runs them; src/deposits starts them and, from the
 * intent lifecycle's activities, signals them).
 */
/** The workflow functions' names: what a start sends as its type (workflows/index.ts exports them). */
export const depositWorkflowType = 'processDeposit';
export const refundWorkflowType = 'refundDeposit';
export const depositWorkflowId = (id: string) => `deposit-${id}`;
export const refundWorkflowId = (id: string) => `deposit-${id}-refund`;

/**
 * A deposit's intent (bridge or refund) settled: sent after the intent lifecycle records COMPLETED, FAILED or EXPIRED,
 * and with status RELEASED once it released the intent at `expires` or a snapshot released what it held.
 */
export const intentSettledSignal = defineSignal<[{ intentId: string; status: string }]>('intentSettled');

/**
 * "Look again": the intent's funds may have been released. The deposit asks the ledger, which alone says whether
 * the intent holds nothing more (a claim mined before `expires` may still be reported after it).
 */
export const RELEASED = 'RELEASED';

/**
 * The deposit error codes the workflows decide on their own (what each means and whether the workflow retries it:
 * src/deposits/error-codes.json, the catalogue these are checked against).
 */
export const WORKFLOW_CODES = {
  /** no route to the target */
  noRoute: 'BRIDGE-6',
  /** the funds never showed in the account's balance */
  fundsMissing: 'BALANCE-1',
  /** the attempt's intent was not filled by its deadline */
  bridgeExpired: 'BRIDGE-3',
  /** the attempt's intent failed */
  bridgeFailed: 'BRIDGE-4',
} as const;

/** Where a deposit is; `processDeposit` returns the stage it ended in. */
export type DepositStage = 'received' | 'bridging' | 'completed' | 'rejected' | 'refunding' | 'refunded' | 'voided';

/** Fixed when the deposit is received, so a configuration change never alters a running deposit. */
export interface DepositTiming {
  expectedSeconds: number;
  bridgeExpectedSeconds: number;
  bridgeRetries: number;
  retrySeconds: number;
  fundsWaitSeconds: number;
  /** the fill deadline of an attempt's intent, from its quote */
  bridgeTimeoutSeconds: number;
  /** refund intents tried before the refund is left to a transfer made outside */
  refundAttempts: number;
}

/** The input of both workflows. */
export interface DepositStart {
  depositId: string;
  timing: DepositTiming;
}

/** How a refund ends: refunded by an intent, or left to a transfer made outside. */
export type RefundOutcome = 'refunded' | 'external' | 'voided';

/**
 * A deposit error code (src/deposits/error-codes.json is their table; the domain types them exactly, the workflows
 * only pass them on or pick one of WORKFLOW_CODES).
 */
export type DepositCode = string;

/** What the checks a received deposit passes decided (src/deposits/checks.ts): refused, already there, or to bridge. */
export type Verdict =
  | { kind: 'reject'; code: DepositCode; message: string; limits?: { minAmountUsd: string } }
  | { kind: 'direct' }
  | { kind: 'bridge' };

/** A reorg dropped the deposit's transaction (src/deposits/ingest.ts): nothing more is done for it. */
export type Voided = { kind: 'voided' };

/** An attempt to start an intent: started, waiting for the funds, or impossible. */
export type Attempt =
  | { kind: 'started'; intentId: string }
  | { kind: 'wait'; message: string }
  | { kind: 'no-route'; message: string }
  | Voided;

/**
 * The deposit and refund workflows' activities (src/deposits/deposit-steps.ts). Each persists one step and emits its
 * webhook in the same transaction, keyed by the step, so running one twice changes nothing.
 */
export interface DepositActivities {
  checkDeposit(id: string): Promise<Verdict | Voided>;
  rejectDeposit(id: string, code: DepositCode, message: string, limits?: Record<string, string>): Promise<void>;
  completeDirect(id: string): Promise<void>;
  startBridge(id: string, attempt: number, timing: DepositTiming): Promise<Attempt>;
  reportDelay(
    id: string,
    kind: 'deposit' | 'bridge',
    attempt: number,
    reason: string,
    timing: DepositTiming,
  ): Promise<void>;
  refundDeposit(id: string, code: DepositCode, message: string, attempt: number, timing: DepositTiming): Promise<void>;
  finishBridge(
    id: string,
    intentId: string,
    attempt: number,
    timing: DepositTiming,
  ): Promise<'completed' | 'retry' | 'refunding' | 'voided'>;
  startRefund(
    id: string,
    attempt: number,
    timing: DepositTiming,
  ): Promise<Attempt | { kind: 'external' } | { kind: 'refunded' }>;
  finishRefund(id: string, intentId: string): Promise<boolean>;
  /** the ledger's word: the intent holds nothing more (its claims settled, or it was released) */
  intentFinal(intentId: string): Promise<boolean>;
}
