import type { DataSource } from 'typeorm';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../src/chains/registry';
import type { Config } from '../src/config';
import { applyEvents } from '../src/indexer/apply-events';
import type { IndexerEvent } from '../src/indexer/types';
import { createQuote } from '../src/intents/quote-service';
import type { IntentInput } from '../src/intents/quote';
import { acceptIntent, recordTransition } from '../src/intents/store';
import type { Submission } from '../src/intents/types';
import type { IntentEvent, IntentStatus } from '../workflows/intent-state';
import { allocateWithdrawal, finishWithdrawal, type WithdrawalRequest } from '../src/withdrawals/allocate';

export interface ActivityDeps { db: DataSource; config: Config; registry: ChainRegistry; defaultLockTag: string; orchestrator: PrivateKeyAccount; allocator: PrivateKeyAccount }

/** Activities get their dependencies injected once per worker process; each is safe to run twice. */
export function createActivities(deps: ActivityDeps) {
  const { db } = deps;
  return {
    applyIndexerEvents: (events: IndexerEvent[]) => db.transaction((tx) => applyEvents(tx, events, deps.defaultLockTag)),
    createQuote: (input: IntentInput, projectId?: string) =>
      createQuote(db, input, projectId, { registry: deps.registry, config: deps.config, lockTag: deps.defaultLockTag, orchestrator: deps.orchestrator }),
    acceptIntent: (id: string, submission: Submission) => acceptIntent(db, id, submission),
    recordTransition: (id: string, status: IntentStatus, event?: IntentEvent) => recordTransition(db, id, status, event),
    allocateWithdrawal: (req: WithdrawalRequest, projectId?: string) =>
      allocateWithdrawal(db, req, projectId, { registry: deps.registry, config: deps.config, lockTag: deps.defaultLockTag, allocator: deps.allocator }),
    finishWithdrawal: (nonce: string, status: 'CLAIMED' | 'EXPIRED') => finishWithdrawal(db, nonce, status),
  };
}

export type Activities = ReturnType<typeof createActivities>;
