/** The deposit lifecycle's decisions, pure so they can be unit-tested and replayed deterministically. */
export type DepositStage = 'received' | 'bridging' | 'completed' | 'rejected' | 'refunding' | 'refunded';

/** The intent statuses that settle a bridge attempt. */
export const BRIDGE_OUTCOMES = ['COMPLETED', 'FAILED', 'EXPIRED'] as const;
export type BridgeOutcome = (typeof BRIDGE_OUTCOMES)[number];
export const isBridgeOutcome = (status: string): status is BridgeOutcome => (BRIDGE_OUTCOMES as readonly string[]).includes(status);

/** Fixed when the deposit is received, so a configuration change never alters a running deposit. */
export interface DepositTiming {
  expectedSeconds: number;
  bridgeExpectedSeconds: number;
  bridgeRetries: number;
  retrySeconds: number;
  fundsWaitSeconds: number;
}

export interface DepositStart { depositId: string; timing: DepositTiming }

/** A settled attempt: complete, retry with a fresh quote while retries remain, else refund. */
export function afterBridge(outcome: BridgeOutcome, attempt: number, retries: number): 'complete' | 'retry' | 'refund' {
  if (outcome === 'COMPLETED') return 'complete';
  return attempt <= retries ? 'retry' : 'refund';
}

/** Why an attempt failed, as a deposit error code: not filled by its deadline, or the bridge reported a failure. */
export const bridgeErrorCode = (outcome: Exclude<BridgeOutcome, 'COMPLETED'>) => (outcome === 'EXPIRED' ? 'BRIDGE-3' : 'BRIDGE-4');

/**
 * While an attempt cannot start (funds not in the balance yet, or held by the previous attempt until it expires):
 * without a route, or once the funds wait is over, the deposit ends (rejected before any intent, refunded after);
 * else the deposit's delay is reported once it is due (before its first bridge only: a retry's wait follows a
 * `bridge-failed`), and the attempt is tried again.
 */
export function whileWaiting(w: { noRoute: boolean; fundsWaitOver: boolean; delayDue: boolean; delayReported: boolean; attempt: number }): 'reject' | 'refund' | 'report-delay' | 'retry' {
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
      return 'failed';
    case 'refunded':
      return 'refunded';
  }
}
