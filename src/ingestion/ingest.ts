import type { Db, Tx } from '../db/types';
import type { ChainTx, IntentEvent } from '../../workflows/intent-state';
import { withdrawalClaimSignal, withdrawalWorkflowId } from '../../workflows/contracts/withdrawal';
import {
  awaitingWorkflowId,
  queueSignals,
  type AwaitedOwner,
  type QueuedSignal,
  type QueuedStart,
} from '../outbox/store';
import { ownerWaitSeconds } from '../intents/outbox-owners';
import { applyDepositEvents, type DepositIngestDeps } from '../deposits/ingest';
import { goneSessionHolds, queueIntentReports, type GoneHold } from '../deposits/arrival-store';
import { RELEASED } from '../../workflows/contracts/deposit';
import { depositReports } from '../../workflows/deposit-state';
import { lifecycleStarts } from '../intents/store';
import { recordLifecycleEvents, type StatusMove } from '../intents/transition-store';
import { releaseCancelled, releaseGone, releaseSettled } from '../ledger/ledger';
import { recordWithdrawalClaim } from '../withdrawals/allocate';
import { applyEvents } from './apply-events';
import { toQueue } from './event-keys';
import { withdrawalNonces } from './event-store';
import { lockChainClocks, screenEvents } from './screen';
import type { IndexerConfig } from './config';
import type { Delivery, IndexerEvent, IngestResult, LifecycleEvent } from './types';

/** What a batch reads of the settings and the chain registry: the deposit processor's, and the clock-skew bound. */
export interface IngestDeps extends DepositIngestDeps {
  config: DepositIngestDeps['config'] & { indexer: IndexerConfig };
}

const VOIDED = "cancelled: its deposit's transaction was dropped from the chain by a reorganization";

/**
 * One indexer batch in one transaction: events recorded by id, new events that contradict what is stored refused
 * (src/ingestion/screen.ts, judged by `now`), new snapshots applied, and a signal queued in the outbox for every new
 * lifecycle event that has a recorded owner. Once this commits the batch is durable; the caller delivers the signals.
 */
export async function ingestEvents(
  db: Db,
  events: IndexerEvent[],
  defaultLockTag: string,
  deps: IngestDeps,
  now = new Date(),
): Promise<{ result: IngestResult; signals: QueuedSignal[]; starts: QueuedStart[] }> {
  return db.transaction(async (tx) => {
    await lockChainClocks(tx, events);
    const screen = (batch: IndexerEvent[]) =>
      screenEvents(tx, batch, Math.floor(now.getTime() / 1000), deps.config.indexer.maxClockSkewSeconds);
    const {
      deliveries,
      deposits: depositEvents,
      snapshotAccounts,
      ...result
    } = await applyEvents(tx, events, defaultLockTag, screen);
    // Deposits, voids, refunds and on-ramp orders: recorded with their webhooks and workflow starts in this transaction.
    const { starts, cancelled } = await applyDepositEvents(tx, depositEvents, deps);
    // A voided deposit's intent fails as a reported failure would, and signals its lifecycle so.
    const voids = cancelled.map((c): Delivery => ({
      nonce: c.intentId,
      event: {
        id: `deposit-void:${c.intentId}`,
        type: 'failure',
        chainId: c.chainId,
        nonce: c.intentId,
        reason: VOIDED,
      },
    }));
    const delivered = await deliver(tx, [...deliveries, ...voids], deps, now);
    let signals = delivered.signals;
    // After the batch's own fills and claims are recorded (a fill reported wins): session intents whose funds the new
    // snapshots show gone fail as a reported failure would, and their hold on the gone funds ends with them.
    const gone = await goneSessionHolds(tx, snapshotAccounts);
    if (gone.length) {
      const failed = await deliver(tx, [...new Map(gone.map((g) => [g.intentId, goneFailure(g)])).values()], deps, now);
      const ended = new Set(failed.moves.filter((m) => m.status === 'FAILED').map((m) => m.id));
      await releaseGone(
        tx,
        gone.filter((g) => ended.has(g.intentId)).map((g) => g.reservationId),
      );
      signals = [...signals, ...failed.signals];
    }
    // Last, after the claims (row locks in one order: balances, then owners, then reservations): reservations of the
    // accounts with new snapshots go once those show their claim, or a block at or after their `expires`.
    // Their deposits look again whether the intents that held them are final (RELEASED: see workflows/deposit.ts).
    const released = await releaseSettled(tx, snapshotAccounts);
    const voided = cancelled.map((c) => c.intentId);
    await releaseCancelled(tx, voided);
    signals = [...signals, ...(await queueIntentReports(tx, [...new Set([...released, ...voided])], RELEASED))];
    return { result, signals, starts };
  });
}

/**
 * New lifecycle events, in the batch's transaction: recorded on their intents (recordEventsNow) and queued as signals
 * to the workflows that own their nonces, with the reports of the statuses they moved to the deposits those move.
 */
async function deliver(
  tx: Tx,
  deliveries: Delivery[],
  deps: IngestDeps,
  now: Date,
): Promise<{ signals: QueuedSignal[]; moves: StatusMove[] }> {
  if (!deliveries.length) return { signals: [], moves: [] };
  const nonces = [...new Set(deliveries.map((d) => d.nonce))];
  const grace = deps.config.intents.fillGraceSeconds;
  const withdrawals = new Set(await withdrawalNonces(tx, nonces));
  const { moves, owners } = await recordEventsNow(tx, deliveries, withdrawals);
  // Lifecycles still in their start delay read their record when it ends: only the others are signalled.
  const inDelay = new Set(
    [...owners].filter(([, fillDeadline]) => (fillDeadline + grace) * 1000 > now.getTime()).map(([id]) => id),
  );
  const running = nonces.filter((n) => owners.has(n) && !inDelay.has(n));
  const lifecycles = running.length ? await lifecycleStarts(tx, running, grace) : new Map<string, QueuedStart>();
  const queued = await toQueue(
    tx,
    deliveries.map((d) => ({ nonce: d.nonce, type: d.event.type, chainId: d.event.chainId })),
  );
  // A nonce with no intent or bundle yet may be one whose submit has not committed: its events wait for it.
  const awaiting = { deadAfter: now.getTime() + ownerWaitSeconds(deps.config) * 1000 };
  const signals = await queueSignals(
    tx,
    deliveries
      .filter((d, i) => queued[i] && !inDelay.has(d.nonce))
      .flatMap((d) =>
        signalsFor(d, lifecycles.get(d.nonce), withdrawals.has(d.nonce), { ...awaiting, nonce: d.nonce }),
      ),
  );
  return { signals: [...signals, ...(await reportMoves(tx, moves))], moves };
}

/** The failure a snapshot that shows a session intent's funds gone stands for (on the chain of that snapshot). */
const goneFailure = (g: GoneHold): Delivery => ({
  nonce: g.intentId,
  event: {
    id: `gone:${g.intentId}:${g.chainId}:${g.block}`,
    type: 'failure',
    chainId: g.chainId,
    nonce: g.intentId,
    reason: `The account's balance of ${g.token} on chain ${g.chainId} at block ${g.block} is ${g.balance}, less than the ${g.held} the intent holds: its funds are gone`,
  },
});

/**
 * Lifecycle events are recorded here, not only by the workflow their signal goes to: a status is visible once the
 * batch commits, not once Temporal has woken its lifecycle, and a claim mined just before `expires` may be reported
 * after its lifecycle or withdrawal hold ended, when its signal finds no workflow. Both sides record them
 * idempotently, so either may come first.
 */
async function recordEventsNow(
  tx: Tx,
  deliveries: Delivery[],
  withdrawals: Set<string>,
): Promise<{ moves: StatusMove[]; owners: Map<string, number> }> {
  const recorded = await recordLifecycleEvents(
    tx,
    deliveries.filter((d) => !withdrawals.has(d.nonce)).map((d) => ({ id: d.nonce, event: intentEvent(d.event) })),
  );
  for (const d of deliveries.filter((d) => d.event.type === 'claim' && withdrawals.has(d.nonce)))
    await recordWithdrawalClaim(tx, d.nonce, chainTx(d.event));
  return recorded;
}

/**
 * Deposits whose intent an event moved: their workflows go on, told as by the lifecycle's own transitions. One report
 * per status the batch moved intents to, however many intents it moved, and one per intent.
 */
async function reportMoves(tx: Tx, moves: StatusMove[]): Promise<QueuedSignal[]> {
  const signals: QueuedSignal[] = [];
  for (const [status, ids] of depositReports(moves)) signals.push(...(await queueIntentReports(tx, ids, status)));
  return signals;
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
 * other owner; any other nonce without one is awaited (`awaiting`: see AwaitedOwner). `lifecycle`: the start of one
 * past its start delay (the caller signals none in it: the event is in its record, which the lifecycle reads when the
 * delay ends, workflows/intent-lifecycle.ts; waking it would cost Temporal a workflow start per event, which is what
 * bounded a busy chain's fills and claims per second).
 */
function signalsFor(
  { nonce, event }: Delivery,
  lifecycle: QueuedStart | undefined,
  withdrawal: boolean,
  awaiting: AwaitedOwner,
): Omit<QueuedSignal, 'id'>[] {
  if (event.type === 'claim' && withdrawal)
    return [{ workflowId: withdrawalWorkflowId(nonce), signal: withdrawalClaimSignal.name, payload: chainTx(event) }];
  if (withdrawal && !lifecycle) return [];
  const to = lifecycle
    ? { workflowId: lifecycle.workflowId, start: lifecycle }
    : { workflowId: awaitingWorkflowId(nonce), awaiting };
  // The signal's name is the event's type (workflows/contracts/intent-lifecycle.ts), its payload the rest.
  const { type, ...payload } = intentEvent(event);
  return [{ ...to, signal: type, payload }];
}

/** The event as its lifecycle applies it. */
function intentEvent(event: LifecycleEvent): IntentEvent {
  switch (event.type) {
    case 'preconfirmation':
      return { type: 'preconfirmation', chainId: event.chainId };
    case 'failure':
      return { type: 'failure', chainId: event.chainId, reason: event.reason! };
    case 'fill':
    case 'claim':
      return { type: event.type, ...chainTx(event) };
  }
}
