import { ApplicationFailure } from '@temporalio/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/registry';
import { toCaip2 } from '../chains/registry';
import type { DepositSettings } from './config';
import { DomainError } from '../errors';
import { DEFAULT_PRICES_USD } from '../intents/market-defaults';
import type { IntentInput } from '../intents/quote';
import { createQuote, quoteCost, type QuoteDeps } from '../intents/quote-service';
import type { VerifyDeps } from '../intents/verify';
import { activityFailure } from '../temporal-sdk/activity-failure';
import type { Outbox } from '../outbox/outbox';
import type { QueuedSignal, QueuedStart } from '../outbox/store';
import { type DepositTiming, RELEASED } from '../../workflows/contracts/deposit';
import { afterBridge, bridgeErrorCode, reportsToDeposit } from '../../workflows/deposit-state';
import { enablesSessionSigner } from './account-proof';
import { findAccount, markProven } from './account-store';
import { verdict, type Verdict } from './checks';
import type { DepositErrorCode } from './errors';
import { signAndSubmit } from './session-intents';
import { targetAmount, totalSpent } from './sizing';
import {
  attemptOf,
  type DepositRow,
  findPriceUsd,
  forgetAttempt,
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
  queueIntentReports,
  queueRefund,
  recordAttempt,
} from './store';
import { depositPart } from './presenter';
import { emitDepositEvent, emitRefunded } from './deposit-webhooks';
import type { Attempt } from '../../workflows/contracts/deposit';

/** What the deposit activities need beside the database: the intent core's dependencies and each project's session signer. */
export interface DepositDeps {
  registry: ChainRegistry;
  quote: QuoteDeps;
  verify: VerifyDeps;
  sessionSigner: (projectId: string) => PrivateKeyAccount;
}

/** The intent core refused for want of funds (its quote's or submit's error code). */
const INSUFFICIENT = 'INSUFFICIENT_BALANCE';

/** A deposit row or its intent is missing: no retry can bring it back, so the activity fails for good. */
function mustExist<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw ApplicationFailure.nonRetryable(`${what} not found`, 'NotFound');
  return value;
}

/** A reorg dropped the deposit's transaction (src/deposits/ingest.ts, recordVoid): nothing more is done for it. */
const VOIDED = { kind: 'voided' } as const;

/**
 * The deposit workflow's activities (workflows/deposit.ts). Each persists one step and emits its webhook in the same
 * transaction, keyed by the step, so running one twice changes nothing.
 */
export function depositActivities(db: DataSource, config: DepositSettings, outbox: Outbox, deps: DepositDeps) {
  const started = async (starts: (QueuedStart | undefined)[]) => {
    for (const s of starts) if (s) await outbox.start(s).catch(() => undefined); // else the outbox sweeper starts it
  };
  /**
   * Updates the deposit and emits the step's webhook in one transaction; a workflow start it queued follows the
   * commit. A voided deposit takes no step (its void may commit while an activity runs); false then.
   */
  const step = async (id: string, apply: (tx: EntityManager, r: DepositRow) => Promise<QueuedStart | void>) => {
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
    const proven = account.proven || (await enablesSessionSigner(r.account, chainId, deps.sessionSigner(r.projectId)));
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

  /**
   * A quote that moves the deposit from the account's balance of the deposited token on its chain to `to`, built by
   * the intent core's own quote and sized to spend at most the deposit (sizing.ts), with the fill deadline of the
   * deposit's timing. Less available than the deposit means the balance has not caught up: wait. (A previous attempt
   * of the deposit no longer holds any: the workflow starts the next one only once that intent is final.)
   */
  async function quoteMove(
    r: DepositRow,
    to: { chainId: number; token: string; recipient: string },
    timing: DepositTiming,
  ): Promise<{ kind: 'quoted'; nonce: string } | Exclude<Attempt, { kind: 'started' | 'voided' }>> {
    const base: IntentInput = {
      destinationChainId: to.chainId,
      tokenRequests: [{ tokenAddress: to.token }],
      account: { address: r.account, accountType: 'ERC7579', setupOps: [] },
      recipient: { address: to.recipient, accountType: to.recipient === r.account ? 'ERC7579' : 'EOA' },
      destinationExecutions: [],
      accountAccessList: [{ chainId: Number(r.chainId), tokenAddress: r.token }],
      options: { customDeadline: Math.floor(Date.now() / 1000) + timing.bridgeTimeoutSeconds },
    };
    const waiting = {
      kind: 'wait' as const,
      message: 'Waiting for the deposited funds to show in the account balance',
    };
    try {
      // Everything available, to learn the fee of moving it.
      const cost = await quoteCost(db, base, deps.quote);
      if (totalSpent(cost) < BigInt(r.amount)) return waiting;
      const source = deps.registry.token(Number(r.chainId), r.token)!;
      const target = deps.registry.token(to.chainId, to.token)!;
      const amount = targetAmount(
        BigInt(r.amount),
        source.decimals,
        target.decimals,
        BigInt(cost.tokensReceived[0].fee),
      );
      if (amount <= 0n) return { kind: 'no-route', message: 'The deposit does not cover the fees of moving it' };
      const quote = await createQuote(
        db,
        { ...base, tokenRequests: [{ tokenAddress: to.token, amount: amount.toString() }] },
        r.projectId,
        deps.quote,
      );
      return { kind: 'quoted', nonce: BigInt(quote.intentOp.nonce).toString() };
    } catch (e) {
      // The intent core refused the quote: for want of funds the balance has not caught up (wait); else no route.
      if (!(e instanceof DomainError)) throw e;
      return e.code === INSUFFICIENT ? waiting : { kind: 'no-route', message: e.message };
    }
  }

  /**
   * Signs the recorded quote with the project's session signer and submits it through the intent core (repeatable).
   * A quote that lapsed before its submit (a crash in between) or whose funds went meanwhile is forgotten (`unrecord`),
   * and the next call quotes afresh.
   */
  async function submitRecorded(projectId: string, intentId: string, unrecord: () => Promise<unknown>) {
    try {
      const submitted = await signAndSubmit(
        db,
        config,
        deps.verify,
        deps.sessionSigner(projectId),
        projectId,
        intentId,
      );
      await started([submitted.start]);
      return submitted;
    } catch (e) {
      if (e instanceof DomainError && (e.code === 'NOT_FOUND' || e.code === INSUFFICIENT)) {
        await unrecord();
        return undefined;
      }
      // Any other refusal (a signature or account the core rejects) is the same on every retry.
      throw activityFailure(e);
    }
  }

  /**
   * One attempt's intent (of the bridge or the refund): quoted and recorded on the deposit once, then signed and
   * submitted (again, on a repeated call). A quote that lapsed before its submit is forgotten: wait, and quote again.
   */
  async function attemptIntent(
    kind: 'bridge' | 'refund',
    r: DepositRow,
    attempt: number,
    to: { chainId: number; token: string; recipient: string },
    timing: DepositTiming,
  ) {
    if (r.stage === 'voided') return VOIDED;
    if (attemptOf(r, kind).attempts < attempt) {
      const quoted = await quoteMove(r, to, timing);
      if (quoted.kind !== 'quoted') return quoted;
      await recordAttempt(db, kind, r.id, quoted.nonce, attempt);
      r = await deposit(r.id);
      // Voided meanwhile: the attempt was not recorded, and its quote is never submitted.
      if (r.stage === 'voided') return VOIDED;
    }
    const intentId = attemptOf(r, kind).intentId!;
    const submitted = await submitRecorded(r.projectId, intentId, () =>
      forgetAttempt(db, kind, r.id, intentId, attempt),
    );
    if (!submitted) return { kind: 'wait' as const, message: 'The quote lapsed before its submit; quoting again' };
    return { kind: 'submitted' as const, intentId, submitted };
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
    tx: EntityManager,
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
    async queue(tx: EntityManager): Promise<void> {
      if (reportsToDeposit(status) || status === RELEASED) signals = await queueIntentReports(tx, [intentId], status);
    },
    deliver: (): Promise<unknown> => outbox.deliver(signals).catch(() => undefined), // left to the sweeper
  };
}
