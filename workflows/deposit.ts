import { condition, defineSignal, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { afterBridge, type BridgeOutcome, type DepositStage, type DepositStart, isBridgeOutcome, whileWaiting } from './deposit-state';

/** Each activity persists one step with its webhook; retried until it succeeds (a deposit never stops on a passing failure). */
const acts = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
});

/** A deposit's intent settled (sent after the intent lifecycle records COMPLETED, FAILED or EXPIRED). */
export const bridgeOutcomeSignal = defineSignal<[{ intentId: string; status: string }]>('bridgeOutcome');

export const depositWorkflowId = (id: string) => `deposit-${id}`;

/**
 * One deposit, from `deposit-received` (emitted when the indexer's report was recorded) to its terminal step:
 * rejected by the checks, completed without a bridge (same chain and token), completed by an intent, or refunding
 * once every attempt failed (`deposit-refunded` follows when the indexer reports the refund transfer). An attempt
 * that cannot start waits for the funds (`deposit-delayed` once past the expected time); a started one that takes
 * longer than expected emits `bridge-delayed` and keeps waiting for its intent to settle.
 */
export async function processDeposit(start: DepositStart): Promise<DepositStage> {
  const { depositId: id, timing } = start;
  const outcomes = new Map<string, BridgeOutcome>();
  setHandler(bridgeOutcomeSignal, ({ intentId, status }) => {
    if (isBridgeOutcome(status)) outcomes.set(intentId, status);
  });

  const checked = await acts.checkDeposit(id);
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
    let bridge = await acts.startBridge(id, attempt);
    while (bridge.kind !== 'started') {
      const next = whileWaiting({ noRoute: bridge.kind === 'no-route', fundsWaitOver, delayDue, delayReported, attempt });
      if (next === 'reject' || next === 'refund') {
        const code = bridge.kind === 'no-route' ? 'BRIDGE-6' : 'BALANCE-1';
        if (next === 'reject') await acts.rejectDeposit(id, code, bridge.message);
        else await acts.refundDeposit(id, code, bridge.message, attempt);
        return next === 'reject' ? 'rejected' : 'refunding';
      }
      if (next === 'report-delay') {
        await acts.reportDelay(id, 'deposit', attempt, bridge.message);
        delayReported = true;
      }
      // Try again after the retry pause, or as soon as the delay falls due or the wait is over.
      await condition(() => (attempt === 1 && delayDue && !delayReported) || fundsWaitOver, timing.retrySeconds * 1000);
      bridge = await acts.startBridge(id, attempt);
    }
    const intentId = bridge.intentId;
    if (!(await condition(() => outcomes.has(intentId), timing.bridgeExpectedSeconds * 1000))) {
      await acts.reportDelay(id, 'bridge', attempt, 'The bridge is taking longer than expected');
      await condition(() => outcomes.has(intentId));
    }
    const final = afterBridge(outcomes.get(intentId)!, attempt, timing.bridgeRetries) === 'refund';
    const next = await acts.finishBridge(id, intentId, attempt, final);
    if (next !== 'retry') return next;
  }
}
