import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import { recordTransition, releaseIntent, type LifecycleKind } from '../src/intents/store';
import type { Outbox } from '../src/outbox/outbox';
import type { IntentEvent, IntentStatus } from '../workflows/intent-state';
import type { WithdrawalClaim, WithdrawalOutcome } from '../workflows/contracts/withdrawal';
import { finishWithdrawal } from '../src/withdrawals/allocate';
import { attemptDelivery, type AttemptInput } from '../src/webhooks/deliver';
import { workerSlots } from '../src/webhooks/slots';
import { recordVerification } from '../src/compliance/store';
import type { ProviderState } from '../workflows/contracts/verification';
import { depositActivities, reportIntentToDeposit, type DepositDeps } from '../src/deposits/lifecycle';
import { RELEASED } from '../workflows/contracts/deposit';

export interface ActivityDeps { db: DataSource; config: Config; outbox: Outbox; deposits: DepositDeps }

/**
 * Activities get their dependencies injected once per worker process; each is safe to run twice. `slots`: the
 * process's webhook attempt slots, shared with its claim loop.
 */
export function createActivities(deps: ActivityDeps, slots = workerSlots(deps.config.webhooks)) {
  const { db } = deps;
  return {
    recordTransition: async (id: string, status: IntentStatus, event?: IntentEvent, kind?: LifecycleKind) => {
      await recordTransition(db, id, status, event, kind);
      if (kind !== 'bundle') await reportIntentToDeposit(db, deps.outbox, id, status); // a deposit's intent settled: its workflow goes on
    },
    releaseIntent: async (id: string, kind?: LifecycleKind) => {
      await releaseIntent(db, id, kind);
      if (kind !== 'bundle') await reportIntentToDeposit(db, deps.outbox, id, RELEASED); // a deposit's failed intent is final: its next attempt may spend once a snapshot frees the funds
    },
    finishWithdrawal: (nonce: string, status: WithdrawalOutcome, claim?: WithdrawalClaim) => finishWithdrawal(db, nonce, status, claim),
    sweepOutbox: (graceSeconds: number) => deps.outbox.sweep(graceSeconds),
    recordVerificationStatus: (id: string, status: ProviderState, cause: string) => recordVerification(db, id, { status, cause }),
    markVerificationStale: (id: string, cause: string) => recordVerification(db, id, { stale: true, cause }),
    attemptWebhook: (a: AttemptInput) => attemptDelivery(db, deps.config.webhooks, slots, a),
    ...depositActivities(db, deps.config, deps.outbox, deps.deposits),
  };
}

export type Activities = ReturnType<typeof createActivities>;
