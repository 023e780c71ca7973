import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import { recordTransition, releaseIntent } from '../src/intents/store';
import type { Outbox } from '../src/outbox/outbox';
import type { IntentEvent, IntentStatus } from '../workflows/intent-state';
import type { WithdrawalClaim } from '../workflows/withdrawal';
import { finishWithdrawal } from '../src/withdrawals/allocate';
import { attemptDelivery, EndpointSlots, type AttemptInput } from '../src/webhooks/deliver';

export interface ActivityDeps { db: DataSource; config: Config; outbox: Outbox }

/** Activities get their dependencies injected once per worker process; each is safe to run twice. */
export function createActivities(deps: ActivityDeps) {
  const { db } = deps;
  const slots = new EndpointSlots(deps.config.webhooks.endpointConcurrency);
  return {
    recordTransition: (id: string, status: IntentStatus, event?: IntentEvent) => recordTransition(db, id, status, event),
    releaseIntent: (id: string) => releaseIntent(db, id),
    finishWithdrawal: (nonce: string, status: 'CLAIMED' | 'EXPIRED', claim?: WithdrawalClaim) => finishWithdrawal(db, nonce, status, claim),
    sweepOutbox: (graceSeconds: number) => deps.outbox.sweep(graceSeconds),
    attemptWebhook: (a: AttemptInput) => attemptDelivery(db, deps.config.webhooks, slots, a),
  };
}

export type Activities = ReturnType<typeof createActivities>;
