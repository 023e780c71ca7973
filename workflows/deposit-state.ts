import { type DepositStage, type DepositTiming, WORKFLOW_CODES } from './contracts/deposit';

/** The deposit lifecycle's decisions, pure so they can be unit-tested and replayed deterministically. */

/** The intent statuses that settle a bridge attempt. */
export const BRIDGE_OUTCOMES = ['COMPLETED', 'FAILED', 'EXPIRED'] as const;
export type BridgeOutcome = (typeof BRIDGE_OUTCOMES)[number];
export const isBridgeOutcome = (status: string): status is BridgeOutcome =>
  (BRIDGE_OUTCOMES as readonly string[]).includes(status);
/** The statuses an intent reaches only once filled (a claim that came first moves it past FILLED at the fill). */
export const isFilled = (status: string): boolean => status === 'FILLED' || status === 'CLAIMED';
/** The statuses an intent's deposit hears of: a fill completes a bridge or refund; the outcomes settle an attempt. */
export const reportsToDeposit = (status: string): boolean => isFilled(status) || isBridgeOutcome(status);
/**
 * What one batch tells deposits of the intents it moved, per status: each intent once, with the last status the batch
 * moved it to (a batch may move one intent twice, FAILED then COMPLETED, and its deposit hears only where it ended).
 */
export function depositReports(moves: { id: string; kind: string; status: string }[]): Map<string, string[]> {
  const last = new Map<string, string>();
  for (const m of moves) if (m.kind === 'intent') last.set(m.id, m.status);
  const byStatus = new Map<string, string[]>();
  for (const [id, status] of last) {
    if (!reportsToDeposit(status)) continue;
    if (!byStatus.has(status)) byStatus.set(status, []);
    byStatus.get(status)!.push(id);
  }
  return byStatus;
}
/** How often a wait for an intent's final state also asks the database. */
export const FINAL_CHECK_SECONDS = 5 * 60;

/**
 * The most turns of its waiting loops one deposit or refund workflow may take: each is a few history events (a
 * timer, an activity, a workflow task), the workflows do not continue as new, and Temporal ends a run at 51,200
 * events. Settings that could take one past this are refused (src/deposits/config.ts).
 */
export const MAX_DEPOSIT_TURNS = 4000;

/**
 * The turns of the worst case for these settings: every attempt (bridge retries, or refunds) waits its whole funds
 * wait, a turn per retry, then waits for its intent to be final, a turn per check until its `expires`.
 */
export function depositTurns(
  t: Pick<
    DepositTiming,
    'bridgeRetries' | 'retrySeconds' | 'fundsWaitSeconds' | 'bridgeTimeoutSeconds' | 'refundAttempts'
  >,
  claimWindowSeconds: number,
): number {
  const perAttempt =
    Math.ceil(t.fundsWaitSeconds / t.retrySeconds) +
    Math.ceil((t.bridgeTimeoutSeconds + claimWindowSeconds) / FINAL_CHECK_SECONDS) +
    1;
  return perAttempt * Math.max(t.bridgeRetries + 1, t.refundAttempts);
}

/**
 * A final attempt (completed, or released at `expires`): funds that left the account (a recorded fill, or a claim on
 * the deposit's chain, which the arbiter pays only for a fill) complete the deposit, whatever the status says; else
 * retry with a fresh quote while retries remain, then refund.
 */
export function afterBridge(
  spent: { filled: boolean; claimed: boolean },
  attempt: number,
  retries: number,
): 'complete' | 'retry' | 'refund' {
  if (spent.filled || spent.claimed) return 'complete';
  return attempt <= retries ? 'retry' : 'refund';
}

/** Why an attempt failed, as a deposit error code: not filled by its deadline, or the bridge reported a failure. */
export const bridgeErrorCode = (outcome: Exclude<BridgeOutcome, 'COMPLETED'>) =>
  outcome === 'EXPIRED' ? WORKFLOW_CODES.bridgeExpired : WORKFLOW_CODES.bridgeFailed;

/**
 * While an attempt cannot start (funds not in the balance yet):
 * without a route, or once the funds wait is over, the deposit ends (rejected before any intent, refunded after);
 * else the deposit's delay is reported once it is due (before its first bridge only: a retry's wait follows a
 * `bridge-failed`), and the attempt is tried again.
 */
export function whileWaiting(w: {
  noRoute: boolean;
  fundsWaitOver: boolean;
  delayDue: boolean;
  delayReported: boolean;
  attempt: number;
}): 'reject' | 'refund' | 'report-delay' | 'retry' {
  if (w.noRoute || w.fundsWaitOver) return w.attempt === 1 ? 'reject' : 'refund';
  return w.attempt === 1 && w.delayDue && !w.delayReported ? 'report-delay' : 'retry';
}

/** The wire status of a stage (GET /deposits): in progress, done, failed (a refund may be under way), refunded. */
export function wireStatus(stage: DepositStage): 'processing' | 'completed' | 'failed' | 'refunded' {
  switch (stage) {
    case 'received':
    case 'bridging':
      return 'processing';
    case 'completed':
      return 'completed';
    case 'rejected':
    case 'refunding':
    case 'voided':
      return 'failed';
    case 'refunded':
      return 'refunded';
  }
}
