import type { DataSource } from 'typeorm';
import { claimSignal, failureSignal, fillSignal, intentWorkflowId, preconfirmationSignal } from '../../workflows/intent-lifecycle';
import { withdrawalClaimSignal, withdrawalWorkflowId } from '../../workflows/withdrawal';
import { bundleWorkflowId } from '../../workflows/bundle-lifecycle';
import { queueSignals, type QueuedSignal, type QueuedStart } from '../outbox/outbox';
import { applyDepositEvents, type DepositIngestDeps } from '../deposits/ingest';
import { applyEvents } from './apply-events';
import type { Delivery, IndexerEvent, IngestResult } from './types';

/**
 * One indexer batch in one transaction: events recorded by id, new snapshots applied, and a signal queued in the
 * outbox for every new lifecycle event that has a recorded owner. Once this commits the batch is durable; the caller
 * delivers the signals.
 */
export async function ingestEvents(db: DataSource, events: IndexerEvent[], defaultLockTag: string, deposits: DepositIngestDeps): Promise<{ result: IngestResult; signals: QueuedSignal[]; starts: QueuedStart[] }> {
  return db.transaction(async (tx) => {
    const { deliveries, deposits: depositEvents, ...result } = await applyEvents(tx, events, defaultLockTag);
    // Deposits, refunds and on-ramp orders: recorded with their webhooks and workflow starts in this transaction.
    const starts = await applyDepositEvents(tx, depositEvents, deposits);
    if (!deliveries.length) return { result, signals: [], starts };
    // Nonces nobody waits on (unknown, or another kind of owner) get no signal: they stay recorded and change nothing.
    const owners: Owner[] = await tx.query(
      `SELECT n::text AS nonce, EXISTS (SELECT 1 FROM intents WHERE id = n) AS intent, EXISTS (SELECT 1 FROM bundles WHERE id = n) AS bundle,
         EXISTS (SELECT 1 FROM withdrawals w WHERE w.nonce = n) AS withdrawal
       FROM unnest($1::numeric[]) AS n`,
      [[...new Set(deliveries.map((d) => d.nonce))]],
    );
    const ownersOf = new Map(owners.map((o) => [o.nonce, o]));
    return { result, signals: await queueSignals(tx, deliveries.flatMap((d) => signalsFor(d, ownersOf.get(d.nonce)!))), starts };
  });
}

interface Owner { nonce: string; intent: boolean; bundle: boolean; withdrawal: boolean }

/**
 * Who waits for a lifecycle event: the intent or legacy bundle whose id is the nonce (both run the same lifecycle)
 * and, for a Claim, the withdrawal with it.
 */
function signalsFor({ nonce, event }: Delivery, owner: Owner): Omit<QueuedSignal, 'id'>[] {
  const to = owner.bundle ? bundleWorkflowId(nonce) : intentWorkflowId(nonce);
  const tx = { chainId: event.chainId, transactionHash: event.transactionHash!, timestamp: event.timestamp!, ...(event.blockNumber ? { blockNumber: event.blockNumber } : {}) };
  if (event.type === 'claim' && owner.withdrawal) return [{ workflowId: withdrawalWorkflowId(nonce), signal: withdrawalClaimSignal.name, payload: tx }];
  if (!owner.intent && !owner.bundle) return [];
  switch (event.type) {
    case 'preconfirmation': return [{ workflowId: to, signal: preconfirmationSignal.name, payload: { chainId: event.chainId } }];
    case 'failure': return [{ workflowId: to, signal: failureSignal.name, payload: { chainId: event.chainId, reason: event.reason! } }];
    case 'fill': return [{ workflowId: to, signal: fillSignal.name, payload: tx }];
    case 'claim': return [{ workflowId: to, signal: claimSignal.name, payload: tx }];
  }
}
