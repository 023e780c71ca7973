import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/types';
import type { DepositSettings } from './config';
import { DomainError } from '../errors';
import type { IntentInput } from '../intents/quote';
import { createQuote, quoteCost } from '../intents/quote-service';
import { activityFailure } from '../temporal-sdk/activity-failure';
import type { QueuedStart } from '../outbox/store';
import { type DepositTiming } from '../../workflows/contracts/deposit';
import { signAndSubmit } from './session-intents';
import { targetAmount, totalSpent } from './sizing';
import { attemptOf, type DepositRow, forgetAttempt, loadDeposit, recordAttempt } from './store';
import type { Attempt } from '../../workflows/contracts/deposit';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/registry';
import type { QuoteDeps } from '../intents/quote-service';
import type { VerifyDeps } from '../intents/verify';

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
export function mustExist<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw ApplicationFailure.nonRetryable(`${what} not found`, 'NotFound');
  return value;
}

/** A reorg dropped the deposit's transaction (src/deposits/ingest.ts, recordVoid): nothing more is done for it. */
export const VOIDED = { kind: 'voided' } as const;

/**
 * The intent each attempt of a deposit's bridge or refund makes through the intent core: quoted, recorded on the
 * deposit, then signed with the project's session signer and submitted. `started` performs the lifecycle starts a
 * submit queued.
 */
export function intentAttempts(
  db: Db,
  config: DepositSettings,
  deps: DepositDeps,
  started: (starts: (QueuedStart | undefined)[]) => Promise<void>,
) {
  const deposit = async (id: string) => mustExist(await loadDeposit(db, id), `Deposit ${id}`);

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

  return { attemptIntent };
}
