import { getExternalWorkflowHandle, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IndexerEvent, IngestResult } from '../src/indexer/types';
import { claimSignal, failureSignal, fillSignal, intentWorkflowId, preconfirmationSignal } from './intent-lifecycle';
import { withdrawalClaimSignal, withdrawalWorkflowId } from './withdrawal';

const { applyIndexerEvents } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  // Bounded: a batch that keeps failing fails the request (5xx) instead of holding it open.
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 8 },
});

/**
 * One batch from an indexer: recorded and applied in one transaction by an idempotent activity; then each new
 * lifecycle event is signalled to the workflow that owns its nonce. Events for nonces nobody waits on (unknown, or
 * already finished) stay recorded and change nothing.
 */
export async function ingestIndexerEvents(events: IndexerEvent[]): Promise<IngestResult> {
  const { deliveries, ...result } = await applyIndexerEvents(events);
  for (const { nonce, event } of deliveries) {
    const handle = getExternalWorkflowHandle(intentWorkflowId(nonce));
    const tx = { chainId: event.chainId, transactionHash: event.transactionHash!, timestamp: event.timestamp! };
    const sent =
      event.type === 'fill' ? handle.signal(fillSignal, tx)
      : event.type === 'claim' ? handle.signal(claimSignal, tx)
      : event.type === 'failure' ? handle.signal(failureSignal, { chainId: event.chainId, reason: event.reason! })
      : handle.signal(preconfirmationSignal, { chainId: event.chainId });
    await sent.catch(() => undefined); // no running intent for this nonce
    // The same Claim event also ends an allocated withdrawal with that nonce.
    if (event.type === 'claim') await getExternalWorkflowHandle(withdrawalWorkflowId(nonce)).signal(withdrawalClaimSignal, tx).catch(() => undefined);
  }
  return result;
}
