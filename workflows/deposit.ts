import { condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { DepositActivities } from './contracts/deposit';
import {
  type DepositStage,
  type DepositStart,
  intentSettledSignal,
  RELEASED,
  type RefundOutcome,
  WORKFLOW_CODES,
} from './contracts/deposit';
import { FINAL_CHECK_SECONDS, isBridgeOutcome, isFilled, whileWaiting } from './deposit-state';

/** Each activity persists one step with its webhook; retried until it succeeds (a deposit never stops on a passing failure). */
const acts = proxyActivities<DepositActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

/**
 * What the signal reported of each intent. `settled`: an outcome is known. `filled`: its fill was proven. `reports`:
 * how many reports arrived (of any intent), each a reason to ask the ledger again whether an intent is final.
 */
function intentReports() {
  const settled = new Set<string>();
  const filled = new Set<string>();
  let reports = 0;
  setHandler(intentSettledSignal, ({ intentId, status }) => {
    reports++;
    if (status === RELEASED || isBridgeOutcome(status)) settled.add(intentId);
    else if (isFilled(status)) filled.add(intentId);
  });
  return {
    settled: (id: string) => settled.has(id),
    filled: (id: string) => filled.has(id),
    reports: () => reports,
  };
}

/**
 * Until the ledger says the intent holds nothing more (src/deposits/store.ts intentIsFinal): COMPLETED, or ended with
 * every reservation released. A report (an outcome, RELEASED at `expires`, or a snapshot that released its funds)
 * means "look again", and so does every FINAL_CHECK_SECONDS without one. RELEASED alone is never enough: at `expires`
 * the funds wait for a snapshot at or after it, and a claim mined just before it may still be reported, so a retry or
 * refund that went on at RELEASED could move the deposit twice.
 */
async function untilFinal(intents: ReturnType<typeof intentReports>, intentId: string): Promise<void> {
  for (;;) {
    const seen = intents.reports();
    if (await acts.intentFinal(intentId)) return;
    await condition(() => intents.reports() > seen, FINAL_CHECK_SECONDS * 1000);
  }
}

/**
 * One deposit, from `deposit-received` (emitted when the indexer's report was recorded) to its terminal step:
 * rejected by the checks, completed without a bridge (same chain and token), completed by an intent, or refunding
 * once every attempt failed (the refund workflow below takes over). An attempt
 * that cannot start waits for the funds (`deposit-delayed` once past the expected time); a started one that takes
 * longer than expected emits `bridge-delayed` and keeps waiting for its intent to settle; a failed one is decided
 * (retry or refund) only once the ledger released its intent's funds.
 */
export async function processDeposit(start: DepositStart): Promise<DepositStage> {
  const { depositId: id, timing } = start;
  const intents = intentReports();

  const checked = await acts.checkDeposit(id);
  if (checked.kind === 'voided') return 'voided';
  if (checked.kind === 'reject') {
    await acts.rejectDeposit(id, checked.code, checked.message, checked.limits);
    return 'rejected';
  }
  if (checked.kind === 'direct') {
    await acts.completeDirect(id);
    return 'completed';
  }

  // Deadlines as timers (workflow time): the deposit's expected time, and each attempt's wait for its funds.
  let delayDue = false;
  let delayReported = false;
  void sleep(timing.expectedSeconds * 1000).then(() => (delayDue = true));
  for (let attempt = 1; ; attempt++) {
    let fundsWaitOver = false;
    void sleep(timing.fundsWaitSeconds * 1000).then(() => (fundsWaitOver = true));
    let bridge = await acts.startBridge(id, attempt, timing);
    while (bridge.kind !== 'started') {
      // A reorg dropped the deposit's transaction (its ingestion voided it): nothing starts.
      if (bridge.kind === 'voided') return 'voided';
      const next = whileWaiting({
        noRoute: bridge.kind === 'no-route',
        fundsWaitOver,
        delayDue,
        delayReported,
        attempt,
      });
      if (next === 'reject' || next === 'refund') {
        const code = bridge.kind === 'no-route' ? WORKFLOW_CODES.noRoute : WORKFLOW_CODES.fundsMissing;
        if (next === 'reject') await acts.rejectDeposit(id, code, bridge.message);
        else await acts.refundDeposit(id, code, bridge.message, attempt, timing);
        return next === 'reject' ? 'rejected' : 'refunding';
      }
      if (next === 'report-delay') {
        await acts.reportDelay(id, 'deposit', attempt, bridge.message, timing);
        delayReported = true;
      }
      // Try again after the retry pause, or as soon as the delay falls due or the wait is over.
      await condition(() => (attempt === 1 && delayDue && !delayReported) || fundsWaitOver, timing.retrySeconds * 1000);
      bridge = await acts.startBridge(id, attempt, timing);
    }
    const intentId = bridge.intentId;
    // A fill settles the attempt for the customer.
    const settled = () => intents.settled(intentId) || intents.filled(intentId);
    if (!(await condition(settled, timing.bridgeExpectedSeconds * 1000))) {
      await acts.reportDelay(id, 'bridge', attempt, 'The bridge is taking longer than expected', timing);
    }
    // A failed attempt may still be claimed until its `expires`: no retry or refund before the ledger released its funds.
    await untilFinal(intents, intentId);
    const next = await acts.finishBridge(id, intentId, attempt, timing);
    if (next !== 'retry') return next;
  }
}

/**
 * A deposit's refund (after its last failed bridge, or a recovery): a same-chain intent from the account back to the
 * refund recipient, retried with a fresh quote (each once the previous one is final) until one is filled
 * (`deposit-refunded`). A token the intent core cannot move, funds that never show, or `refundAttempts` failed
 * intents leave it to a transfer made outside, which the indexer reports (`deposit-refund`).
 */
export async function refundDeposit(start: DepositStart): Promise<RefundOutcome> {
  const { depositId: id, timing } = start;
  const intents = intentReports();
  for (let attempt = 1; attempt <= timing.refundAttempts; attempt++) {
    let fundsWaitOver = false;
    void sleep(timing.fundsWaitSeconds * 1000).then(() => (fundsWaitOver = true));
    let refund = await acts.startRefund(id, attempt, timing);
    while (refund.kind === 'wait' && !fundsWaitOver) {
      await condition(() => fundsWaitOver, timing.retrySeconds * 1000);
      refund = await acts.startRefund(id, attempt, timing);
    }
    if (refund.kind === 'refunded' || refund.kind === 'voided') return refund.kind;
    if (refund.kind !== 'started') return 'external';
    const intentId = refund.intentId;
    await untilFinal(intents, intentId);
    if (await acts.finishRefund(id, intentId)) return 'refunded';
  }
  return 'external';
}
