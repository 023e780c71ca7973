import type { Db, Tx } from '../db/types';
import { toCaip2 } from '../chains/registry';
import type { DepositSettings } from './config';
import { DEFAULT_PRICES_USD } from '../intents/market-defaults';
import type { Outbox } from '../outbox/outbox';
import type { QueuedSignal, QueuedStart } from '../outbox/store';
import { type DepositTiming, RELEASED } from '../../workflows/contracts/deposit';
import { afterBridge, bridgeErrorCode, reportsToDeposit } from '../../workflows/deposit-state';
import { enablesSessionSigner } from './account-proof';
import { findAccount, markProven } from './account-store';
import { verdict, type Verdict } from './checks';
import type { DepositErrorCode } from './errors';
import {
  type DepositRow,
  findPriceUsd,
  intentIsFinal,
  isComplianceApproved,
  loadDeposit,
  loadIntentOutcome,
  markBridgeCompleted,
  markBridging,
  markCompletedDirect,
  markRefunded,
  markRefunding,
  markRejected,
  queueRefund,
} from './store';
import { queueIntentReports } from './arrival-store';
import { depositPart } from './presenter';
import { emitDepositEvent, emitRefunded } from './deposit-webhooks';
import type { Attempt } from '../../workflows/contracts/deposit';
import { type DepositDeps, intentAttempts, mustExist, VOIDED } from './intent-attempts';

/**
 * The deposit workflow's activities (workflows/deposit.ts). Each persists one step and emits its webhook in the same
 * transaction, keyed by the step, so running one twice changes nothing.
 */
export function depositActivities(db: Db, config: DepositSettings, outbox: Outbox, deps: DepositDeps) {
  const started = async (starts: (QueuedStart | undefined)[]) => {
    for (const s of starts) if (s) await outbox.start(s).catch(() => undefined); // else the outbox sweeper starts it
  };
  const { attemptIntent } = intentAttempts(db, config, deps, started);
  /**
   * Updates the deposit and emits the step's webhook in one transaction; a workflow start it queued follows the
   * commit. A voided deposit takes no step (its void may commit while an activity runs); false then.
   */
  const step = async (id: string, apply: (tx: Tx, r: DepositRow) => Promise<QueuedStart | void>) => {
    const outcome = await db.transaction(async (tx) => {
      const r = mustExist(await loadDeposit(tx, id, true), `Deposit ${id}`);
      return r.stage === 'voided' ? undefined : { start: await apply(tx, r) };
    });
    if (outcome?.start) await started([outcome.start]);
    return outcome !== undefined;
  };
  const deposit = async (id: string) => mustExist(await loadDeposit(db, id), `Deposit ${id}`);

  async function checkDeposit(id: string): Promise<Verdict | typeof VOIDED> {
    const r = await deposit(id);
    if (r.stage === 'voided') return VOIDED;
    const account = mustExist(await findAccount(db, r.account, r.projectId), `Account ${r.account}`);
    const chainId = Number(r.chainId);
    // Unproven at registration (not deployed then, or on another chain): the deposit's chain may prove it now.
    const proven =
      account.proven ||
      (await enablesSessionSigner(r.account, chainId, deps.sessionSigner(r.projectId), deps.verify.rpc));
    if (proven && !account.proven) await markProven(db, r.account, r.projectId);
    const token = deps.registry.token(chainId, r.token);
    const price = token && (await findPriceUsd(db, token.symbol));
    const approved = account.requireCompliance && (await isComplianceApproved(db, r.projectId, r.account));
    return verdict({
      token,
      amount: BigInt(r.amount),
      priceUsd: price ? Number(price) : token && DEFAULT_PRICES_USD[token.symbol],
      minUsd: config.deposits.minUsd,
      managed: account.managed,
      proven,
      hasSession: account.sessionChainIds.includes(chainId),
      requireCompliance: account.requireCompliance,
      complianceApproved: approved,
      sameChain: chainId === Number(r.targetChainId),
      targetToken: r.targetToken,
      recipientIsAccount: r.recipient === r.account,
      targetSymbol: deps.registry.token(Number(r.targetChainId), r.targetToken)?.symbol ?? 'an unsupported target',
    });
  }

  async function rejectDeposit(
    id: string,
    code: DepositErrorCode,
    message: string,
    limits?: Record<string, string>,
  ): Promise<void> {
    await step(id, async (tx, r) => {
      await markRejected(tx, id, code);
      await emitDepositEvent(tx, r, 'deposit-rejected', 'rejected', {
        errorCode: code,
        message,
        ...(limits ? { limits } : {}),
        deposit: depositPart(r),
      });
    });
  }

  /** Already on the target chain in the target token, in the account that receives it: done without an intent. */
  async function completeDirect(id: string): Promise<void> {
    await step(id, async (tx, r) => {
      await markCompletedDirect(tx, id);
      const leg = { transactionHash: r.txHash, chain: toCaip2(Number(r.chainId)), amount: r.amount, asset: r.token };
      await emitDepositEvent(tx, r, 'bridge-complete', 'complete', {
        deposit: depositPart(r),
        source: leg,
        destination: leg,
        settlementLayer: null,
      });
    });
  }

  /** One attempt's intent to the target, recorded on the deposit before it is signed and submitted. */
  async function startBridge(id: string, attempt: number, timing: DepositTiming): Promise<Attempt> {
    const r = await deposit(id);
    const made = await attemptIntent(
      'bridge',
      r,
      attempt,
      { chainId: Number(r.targetChainId), token: r.targetToken, recipient: r.recipient },
      timing,
    );
    if (made.kind !== 'submitted') return made;
    const { intentId, submitted } = made;
    const element = submitted.operation.elements[0];
    // Voided once its intent was accepted: the void cancelled the intent, and no bridge is announced.
    const taken = await step(id, async (tx, row) => {
      await markBridging(tx, id, intentId, {
        settlementLayer: element.mandate.qualifier.settlementContext.settlementLayer,
        sourceAmount: element.idsAndAmounts[0][1],
        destinationAmount: element.mandate.tokenOut[0][1],
      });
      await emitDepositEvent(tx, row, 'bridge-started', `bridge-started:${attempt}`, {
        intentId,
        source: { chain: toCaip2(Number(element.chainId)), asset: row.token, amount: element.idsAndAmounts[0][1] },
        destination: {
          chain: toCaip2(Number(row.targetChainId)),
          asset: row.targetToken,
          amount: element.mandate.tokenOut[0][1],
        },
        deposit: depositPart(row),
        settlementLayer: element.mandate.qualifier.settlementContext.settlementLayer.toLowerCase(),
        estimatedFillTime: { seconds: timing.bridgeExpectedSeconds },
        attempt,
      });
    });
    return taken ? { kind: 'started', intentId } : VOIDED;
  }

  async function reportDelay(
    id: string,
    kind: 'deposit' | 'bridge',
    attempt: number,
    reason: string,
    timing: DepositTiming,
  ): Promise<void> {
    await step(id, (tx, r) =>
      kind === 'deposit'
        ? emitDepositEvent(tx, r, 'deposit-delayed', 'deposit-delayed', { reason, deposit: depositPart(r) })
        : emitDepositEvent(tx, r, 'bridge-delayed', `bridge-delayed:${attempt}`, {
            reason,
            intentId: r.intentId,
            attempt,
            estimatedDelayTime: { seconds: timing.bridgeTimeoutSeconds },
            deposit: depositPart(r),
          }),
    );
  }

  /** Nothing more will be tried: the funds go back to the sender, by the refund workflow (refundDeposit in workflows/deposit.ts). */
  const refund = async (
    tx: Tx,
    r: DepositRow,
    code: DepositErrorCode,
    message: string,
    attempt: number,
    timing: DepositTiming,
  ) => {
    await markRefunding(tx, r.id, code);
    const start = await queueRefund(tx, r.id, timing);
    await emitDepositEvent(tx, r, 'bridge-failed', `bridge-failed:${attempt}`, {
      intentId: r.intentId,
      errorCode: code,
      message,
      retryable: false,
      attempt,
      deposit: depositPart(r),
    });
    return start;
  };

  /** A retry could not start (no route, or the funds never freed): refunded. */
  async function refundDeposit(
    id: string,
    code: DepositErrorCode,
    message: string,
    attempt: number,
    timing: DepositTiming,
  ): Promise<void> {
    await step(id, (tx, r) => refund(tx, r, code, message, attempt, timing));
  }

  /** A final intent as recorded: its status and whether funds left the account (a fill, or a claim on `chainId`). */
  async function finalIntent(intentId: string, chainId: string) {
    const found = mustExist(await loadIntentOutcome(db, intentId), `Intent ${intentId}`);
    const claim = found.claims[String(Number(chainId))] ?? Object.values(found.claims)[0];
    return { ...found, claim, spent: { filled: !!found.fill, claimed: !!found.claims[String(Number(chainId))] } };
  }

  /**
   * A final intent (COMPLETED, or released at its `expires`): funds that left the account complete the deposit with
   * the fill (destination) and claim (source) transactions, either null when none was reported (a fill not yet
   * claimed, or a claim of an intent recorded FAILED or EXPIRED). Else `bridge-failed`, retryable while retries
   * remain, then the deposit is refunded.
   */
  async function finishBridge(
    id: string,
    intentId: string,
    attempt: number,
    timing: DepositTiming,
  ): Promise<'completed' | 'retry' | 'refunding' | 'voided'> {
    const r0 = await deposit(id);
    if (r0.stage === 'voided') return 'voided';
    const intent = await finalIntent(intentId, r0.chainId);
    const next = afterBridge(intent.spent, attempt, timing.bridgeRetries);
    if (next === 'complete') {
      const source = intent.claim?.transactionHash ?? null;
      await step(id, async (tx, r) => {
        // The fill's report, else the arrival the indexer reported into the recipient (recordOwnArrival).
        const destination = intent.fill?.transactionHash ?? r.destinationTxHash;
        await markBridgeCompleted(tx, id, intentId, source, destination);
        await emitDepositEvent(tx, r, 'bridge-complete', 'complete', {
          intentId,
          deposit: depositPart(r),
          source: {
            transactionHash: source,
            chain: toCaip2(Number(r.chainId)),
            amount: r.sourceAmount,
            asset: r.token,
          },
          destination: {
            transactionHash: destination,
            chain: toCaip2(Number(r.targetChainId)),
            amount: r.destinationAmount,
            asset: r.targetToken,
          },
          settlementLayer: r.settlementLayer?.toLowerCase() ?? null,
        });
      });
      return 'completed';
    }
    const code = bridgeErrorCode(intent.status === 'EXPIRED' ? 'EXPIRED' : 'FAILED');
    const message =
      intent.status === 'EXPIRED' ? 'The intent was not filled by its deadline' : 'The bridge reported a failure';
    await step(id, async (tx, r) =>
      next === 'refund'
        ? refund(tx, r, code, message, attempt, timing)
        : emitDepositEvent(tx, r, 'bridge-failed', `bridge-failed:${attempt}`, {
            intentId,
            errorCode: code,
            message,
            retryable: true,
            attempt,
            deposit: depositPart(r),
          }),
    );
    return next === 'refund' ? 'refunding' : 'retry';
  }

  /**
   * One refund attempt: a same-chain intent from the account back to the refund recipient, recorded before it is
   * signed and submitted. A token the intent core cannot move (unsupported), or a chain where the session signer
   * may not act for the account (a user-owned account without a session there), is left to a transfer made outside,
   * which the indexer reports (`deposit-refund`).
   */
  async function startRefund(
    id: string,
    attempt: number,
    timing: DepositTiming,
  ): Promise<Attempt | { kind: 'external' } | { kind: 'refunded' }> {
    const r = await deposit(id);
    if (r.stage === 'refunded') return { kind: 'refunded' };
    if (r.stage === 'voided') return VOIDED;
    const account = mustExist(await findAccount(db, r.account, r.projectId), `Account ${r.account}`);
    const mayAct = account.managed || account.sessionChainIds.includes(Number(r.chainId));
    if (!deps.registry.token(Number(r.chainId), r.token) || !mayAct) return { kind: 'external' };
    const made = await attemptIntent(
      'refund',
      r,
      attempt,
      { chainId: Number(r.chainId), token: r.token, recipient: r.refundRecipient! },
      timing,
    );
    return made.kind === 'submitted' ? { kind: 'started', intentId: made.intentId } : made;
  }

  /**
   * A final refund intent: funds that left the account (a fill, the refund transfer; else the claim of an intent
   * recorded FAILED or EXPIRED) make the deposit refunded; otherwise the next attempt may start.
   */
  async function finishRefund(id: string, intentId: string): Promise<boolean> {
    const intent = await finalIntent(intentId, (await deposit(id)).chainId);
    if (!intent.spent.filled && !intent.spent.claimed) return false;
    await step(id, async (tx, r) => {
      const refunded = await markRefunded(tx, r, (intent.fill ?? intent.claim).transactionHash, 'intent');
      if (refunded) await emitRefunded(tx, refunded, intent.operation.elements[0].mandate.tokenOut[0][1]);
    });
    return true;
  }

  /** The database's word on whether an intent is final, should its signal be lost. */
  const intentFinal = (intentId: string) => intentIsFinal(db, intentId);

  return {
    checkDeposit,
    rejectDeposit,
    completeDirect,
    startBridge,
    reportDelay,
    refundDeposit,
    finishBridge,
    startRefund,
    finishRefund,
    intentFinal,
  };
}

/**
 * The report of an intent's status, or of RELEASED once its lifecycle released it at `expires`, to the deposit
 * workflows it moves: `queue` runs in the transaction that records the status or release (src/intents/store.ts), so
 * it is queued with it, once, in the signal outbox; `deliver` sends it after the commit (a lost delivery is repeated
 * by the sweeper).
 */
export function intentReport(outbox: Outbox, intentId: string, status: string) {
  let signals: QueuedSignal[] = [];
  return {
    async queue(tx: Tx): Promise<void> {
      if (reportsToDeposit(status) || status === RELEASED) signals = await queueIntentReports(tx, [intentId], status);
    },
    deliver: (): Promise<unknown> => outbox.deliver(signals).catch(() => undefined), // left to the sweeper
  };
}
