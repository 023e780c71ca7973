import type { DataSource, EntityManager } from 'typeorm';
import type { ChainTx } from '../../workflows/intent-state';
import {
  claimSignal,
  failureSignal,
  fillSignal,
  preconfirmationSignal,
} from '../../workflows/contracts/intent-lifecycle';
import { withdrawalClaimSignal, withdrawalWorkflowId } from '../../workflows/contracts/withdrawal';
import {
  awaitingWorkflowId,
  queueSignals,
  type AwaitedOwner,
  type QueuedSignal,
  type QueuedStart,
} from '../outbox/store';
import { ownerWaitSeconds } from '../outbox/owners';
import { applyDepositEvents, type DepositIngestDeps } from '../deposits/ingest';
import { queueIntentReports } from '../deposits/store';
import { RELEASED } from '../../workflows/contracts/deposit';
import { lifecycleStarts, recordClaims } from '../intents/store';
import { releaseSettled } from '../ledger/ledger';
import { recordWithdrawalClaim } from '../withdrawals/allocate';
import { applyEvents } from './apply-events';
import { toQueue } from './event-keys';
import { withdrawalNonces } from './event-store';
import { lockChainClocks, screenEvents } from './screen';
import type { Delivery, IndexerEvent, IngestResult, LifecycleEvent } from './types';

/**
 * One indexer batch in one transaction: events recorded by id, new events that contradict what is stored refused
 * (src/indexer/screen.ts, judged by `now`), new snapshots applied, and a signal queued in the outbox for every new
 * lifecycle event that has a recorded owner. Once this commits the batch is durable; the caller delivers the signals.
 */
export async function ingestEvents(
  db: DataSource,
  events: IndexerEvent[],
  defaultLockTag: string,
  deps: DepositIngestDeps,
  now = new Date(),
): Promise<{ result: IngestResult; signals: QueuedSignal[]; starts: QueuedStart[] }> {
  return db.transaction(async (tx) => {
    await lockChainClocks(tx, events);
    const screen = (fresh: IndexerEvent[]) =>
      screenEvents(tx, fresh, Math.floor(now.getTime() / 1000), deps.config.indexer.maxClockSkewSeconds);
    const {
      deliveries,
      deposits: depositEvents,
      snapshotAccounts,
      ...result
    } = await applyEvents(tx, events, defaultLockTag, screen);
    // Deposits, refunds and on-ramp orders: recorded with their webhooks and workflow starts in this transaction.
    const starts = await applyDepositEvents(tx, depositEvents, deps);
    let signals: QueuedSignal[] = [];
    if (deliveries.length) {
      const nonces = [...new Set(deliveries.map((d) => d.nonce))];
      const lifecycles = await lifecycleStarts(tx, nonces, deps.config.intents.fillGraceSeconds);
      const withdrawals = new Set(await withdrawalNonces(tx, nonces));
      await recordClaimsNow(tx, deliveries, withdrawals);
      const queued = await toQueue(
        tx,
        deliveries.map((d) => ({ nonce: d.nonce, type: d.event.type, chainId: d.event.chainId })),
      );
      // A nonce with no intent or bundle yet may be one whose submit has not committed: its events wait for it.
      const awaiting = { deadAfter: now.getTime() + ownerWaitSeconds(deps.config) * 1000 };
      signals = await queueSignals(
        tx,
        deliveries
          .filter((_, i) => queued[i])
          .flatMap((d) =>
            signalsFor(d, lifecycles.get(d.nonce), withdrawals.has(d.nonce), { ...awaiting, nonce: d.nonce }),
          ),
      );
    }
    // Last, after the claims (row locks in one order: balances, then owners, then reservations): reservations of the
    // accounts with new snapshots go once those show their claim, or a block at or after their `expires`.
    // Their deposits look again whether the intents that held them are final (RELEASED: see workflows/deposit.ts).
    const released = await releaseSettled(tx, snapshotAccounts);
    signals = [...signals, ...(await queueIntentReports(tx, released, RELEASED))];
    return { result, signals, starts };
  });
}

/**
 * Claims are recorded here, not only by the workflow their signal goes to: one mined just before `expires` may be
 * reported after its lifecycle or withdrawal hold ended, and its signal then finds no workflow. Both record it
 * idempotently, so either may come first.
 */
async function recordClaimsNow(tx: EntityManager, deliveries: Delivery[], withdrawals: Set<string>): Promise<void> {
  const claims = deliveries
    .filter((d) => d.event.type === 'claim')
    .map(({ nonce, event }) => ({ id: nonce, claim: chainTx(event) }));
  await recordClaims(
    tx,
    claims.filter((c) => !withdrawals.has(c.id)),
  );
  for (const c of claims.filter((c) => withdrawals.has(c.id))) await recordWithdrawalClaim(tx, c.id, c.claim);
}

const chainTx = (event: LifecycleEvent): ChainTx => ({
  chainId: event.chainId,
  transactionHash: event.transactionHash!,
  timestamp: event.timestamp!,
  ...(event.blockNumber ? { blockNumber: event.blockNumber } : {}),
});

/**
 * Who waits for a lifecycle event: the intent or legacy bundle whose id is the nonce (both run the same lifecycle;
 * its signals carry its start, which wakes it) and, for a Claim, the withdrawal with it. A withdrawal's nonce has no
 * other owner; any other nonce without one is awaited (`awaiting`: see AwaitedOwner).
 */
function signalsFor(
  { nonce, event }: Delivery,
  lifecycle: QueuedStart | undefined,
  withdrawal: boolean,
  awaiting: AwaitedOwner,
): Omit<QueuedSignal, 'id'>[] {
  const tx = chainTx(event);
  if (event.type === 'claim' && withdrawal)
    return [{ workflowId: withdrawalWorkflowId(nonce), signal: withdrawalClaimSignal.name, payload: tx }];
  if (withdrawal && !lifecycle) return [];
  const to = lifecycle
    ? { workflowId: lifecycle.workflowId, start: lifecycle }
    : { workflowId: awaitingWorkflowId(nonce), awaiting };
  switch (event.type) {
    case 'preconfirmation':
      return [{ ...to, signal: preconfirmationSignal.name, payload: { chainId: event.chainId } }];
    case 'failure':
      return [{ ...to, signal: failureSignal.name, payload: { chainId: event.chainId, reason: event.reason! } }];
    case 'fill':
      return [{ ...to, signal: fillSignal.name, payload: tx }];
    case 'claim':
      return [{ ...to, signal: claimSignal.name, payload: tx }];
  }
}
