import type { DataSource } from 'typeorm';
import { claimSignal, failureSignal, fillSignal, intentWorkflowId, preconfirmationSignal } from '../../workflows/intent-lifecycle';
import { withdrawalClaimSignal, withdrawalWorkflowId } from '../../workflows/withdrawal';
import { queueSignals, type QueuedSignal } from '../outbox/outbox';
import { applyEvents } from './apply-events';
import type { Delivery, IndexerEvent, IngestResult } from './types';

/**
 * One indexer batch in one transaction: events recorded by id, new snapshots applied, and a signal queued in the
 * outbox for every new lifecycle event. Once this commits the batch is durable; the caller delivers the signals.
 */
export async function ingestEvents(db: DataSource, events: IndexerEvent[], defaultLockTag: string): Promise<{ result: IngestResult; signals: QueuedSignal[] }> {
  return db.transaction(async (tx) => {
    const { deliveries, ...result } = await applyEvents(tx, events, defaultLockTag);
    return { result, signals: await queueSignals(tx, deliveries.flatMap(signalsFor)) };
  });
}

/** Who waits for a lifecycle event: the intent whose id is the nonce and, for a Claim, the withdrawal with it. */
function signalsFor({ nonce, event }: Delivery): Omit<QueuedSignal, 'id'>[] {
  const to = intentWorkflowId(nonce);
  const tx = { chainId: event.chainId, transactionHash: event.transactionHash!, timestamp: event.timestamp!, ...(event.blockNumber ? { blockNumber: event.blockNumber } : {}) };
  switch (event.type) {
    case 'preconfirmation': return [{ workflowId: to, signal: preconfirmationSignal.name, payload: { chainId: event.chainId } }];
    case 'failure': return [{ workflowId: to, signal: failureSignal.name, payload: { chainId: event.chainId, reason: event.reason! } }];
    case 'fill': return [{ workflowId: to, signal: fillSignal.name, payload: tx }];
    case 'claim': return [
      { workflowId: to, signal: claimSignal.name, payload: tx },
      { workflowId: withdrawalWorkflowId(nonce), signal: withdrawalClaimSignal.name, payload: tx },
    ];
  }
}
