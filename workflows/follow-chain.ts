import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ChainIndexerActivities } from './contracts/follow-chain';
import type { FollowChainInput } from './contracts/follow-chain';

/**
 * An RPC error (a node down, a rate limit) fails the activity and Temporal retries it with backoff, the range
 * unchanged: no block is ever skipped. Its attempts are visible in the Web UI.
 */
const reader = (taskQueue: string) =>
  proxyActivities<ChainIndexerActivities>({
    taskQueue,
    startToCloseTimeout: '2 minutes',
    // The activity heartbeats while it reads: a range whose worker died is read again 10 s later, not 2 minutes.
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute', backoffCoefficient: 2 },
  }).readChainRange;

/** Ranges read by one run before it continues as new: a chain followed for months keeps a short history. */
const RANGES_PER_RUN = 500;

/**
 * Follows one stream of a chain for ever: reads the next confirmed block range (backfill from the start block, then the head),
 * hands its events to ingestion in-process and carries the cursor on; at the head the read itself waits for the next block.
 */
export async function followChain(input: FollowChainInput): Promise<never> {
  const readChainRange = reader(input.activityQueue);
  let { cursor } = input;
  for (let ranges = 0; ranges < RANGES_PER_RUN && !workflowInfo().continueAsNewSuggested; ranges++) {
    const read = await readChainRange(input.chainId, input.stream, cursor);
    cursor = read.cursor;
  }
  return continueAsNew<typeof followChain>({ ...input, cursor });
}
