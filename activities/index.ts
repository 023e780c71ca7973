import type { Db } from '../src/db/types';
import type { ChainRpc } from '../src/chains/rpc';
import type { Config } from '../src/config';
import { recordedLifecycle, recordTransition, releaseIntent } from '../src/intents/transition-store';
import type { Outbox } from '../src/outbox/outbox';
import type { IntentEvent, IntentStatus } from '../workflows/intent-state';
import type { LifecycleActivities, LifecycleKind } from '../workflows/contracts/intent-lifecycle';
import type { WithdrawalActivities, WithdrawalClaim, WithdrawalOutcome } from '../workflows/contracts/withdrawal';
import { finishWithdrawal } from '../src/withdrawals/allocate';
import { attemptDelivery } from '../src/webhooks/deliver';
import type { AttemptInput, WebhookActivities } from '../workflows/contracts/webhook-delivery';
import { workerSlots } from '../src/webhooks/slots';
import { recordVerification } from '../src/compliance/store';
import type { ProviderState, VerificationActivities } from '../workflows/contracts/verification';
import { depositActivities, intentReport } from '../src/deposits/deposit-steps';
import type { DepositDeps } from '../src/deposits/intent-attempts';
import { type DepositActivities, RELEASED } from '../workflows/contracts/deposit';
import type { PruneActivities, Pruned } from '../workflows/contracts/prune-storage';
import type { SweepActivities } from '../workflows/contracts/sweep-outbox';
import type { ChainIndexerActivities } from '../workflows/contracts/follow-chain';
import { pruneExpired } from '../src/retention/prune';
import { chainIndexerActivities } from '../src/chain-indexer/read-range';

/** `log`: what an activity refuses to apply is logged, not thrown (a retry would change nothing). */
export interface ActivityDeps {
  db: Db;
  config: Config;
  outbox: Outbox;
  deposits: DepositDeps;
  /** the chains the worker reads (RPC_URL_<chainId>) */
  rpc: ChainRpc;
  log: { warn(obj: object, msg: string): void };
}

/** Every workflow's activities, as each workflow's contract declares them (workflows/contracts/). */
export type Activities = LifecycleActivities &
  WithdrawalActivities &
  SweepActivities &
  PruneActivities &
  VerificationActivities &
  WebhookActivities &
  DepositActivities &
  ChainIndexerActivities;

/**
 * Activities get their dependencies injected once per worker process; each is safe to run twice. `slots`: the
 * process's webhook attempt slots, shared with its claim loop.
 */
export function createActivities(deps: ActivityDeps, slots = workerSlots(deps.config.webhooks)): Activities {
  const { db } = deps;
  return {
    recordTransition: async (id: string, status: IntentStatus, event?: IntentEvent, kind?: LifecycleKind) => {
      const report = intentReport(deps.outbox, id, status); // a deposit's intent settled: its workflow goes on
      const outcome = await recordTransition(db, id, status, event, kind, kind === 'bundle' ? undefined : report.queue);
      if (outcome === 'refused')
        deps.log.warn(
          { id, kind: kind ?? 'intent', status, event },
          'stale lifecycle transition refused: the stored status is further along, or the lifecycle has ended',
        );
      await report.deliver();
      return outcome;
    },
    releaseIntent: async (id: string, kind?: LifecycleKind) => {
      // Its deposit asks the ledger again whether the intent is final.
      const report = intentReport(deps.outbox, id, RELEASED);
      await releaseIntent(db, id, kind, kind === 'bundle' ? undefined : report.queue);
      await report.deliver();
    },
    readRecord: async (id: string, kind?: LifecycleKind) => (await recordedLifecycle(db, id, kind)) ?? null,
    finishWithdrawal: (nonce: string, status: WithdrawalOutcome, claim?: WithdrawalClaim) =>
      finishWithdrawal(db, nonce, status, claim),
    sweepOutbox: (graceSeconds: number) => deps.outbox.sweep(graceSeconds),
    pruneExpired: (kind: Pruned) => pruneExpired(db, deps.config.retention, kind),
    recordVerificationStatus: (id: string, status: ProviderState, cause: string) =>
      recordVerification(db, id, { status, cause }),
    markVerificationStale: (id: string, cause: string) => recordVerification(db, id, { stale: true, cause }),
    attemptWebhook: (a: AttemptInput) => attemptDelivery(db, deps.config.webhooks, slots, a),
    ...depositActivities(db, deps.config, deps.outbox, deps.deposits),
    // Read when a range is read: a worker built without the deposit processor's deps follows no chain.
    ...chainIndexerActivities({
      ...deps,
      get registry() {
        return deps.deposits.registry;
      },
      get defaultLockTag() {
        return deps.deposits.quote.lockTag;
      },
    }),
  };
}
