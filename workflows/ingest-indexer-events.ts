import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { IndexerEvent, IngestResult } from '../src/indexer/types';

const { applyIndexerEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', backoffCoefficient: 2 },
});

/** One batch from an indexer: recorded and applied in one transaction by an idempotent activity. */
export async function ingestIndexerEvents(events: IndexerEvent[]): Promise<IngestResult> {
  return applyIndexerEvents(events);
}
