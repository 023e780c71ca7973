import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import { recordTransition, releaseIntent } from '../src/intents/store';
import type { Outbox } from '../src/outbox/outbox';
import type { IntentEvent, IntentStatus } from '../workflows/intent-state';
import type { WithdrawalClaim } from '../workflows/withdrawal';
import { finishWithdrawal } from '../src/withdrawals/allocate';

export interface ActivityDeps { db: DataSource; config: Config; outbox: Outbox }

/** Activities get their dependencies injected once per worker process; each is safe to run twice. */
export function createActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    recordTransition: (id: string, status: IntentStatus, event?: IntentEvent) => recordTransition(db, id, status, event),
    releaseIntent: (id: string) => releaseIntent(db, id),
    finishWithdrawal: (nonce: string, status: 'CLAIMED' | 'EXPIRED', claim?: WithdrawalClaim) => finishWithdrawal(db, nonce, status, claim),
    sweepOutbox: (graceSeconds: number) => deps.outbox.sweep(graceSeconds),
  };
}

export type Activities = ReturnType<typeof createActivities>;
