import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  CHAIN_STREAMS,
  chainIndexerTaskQueue,
  followChainWorkflowId,
  followChainWorkflowType,
  type FollowChainInput,
} from '../../workflows/contracts/follow-chain';
import type { ChainIndexerConfig } from './config';

/**
 * Every worker that follows chains starts their workflows at start; the first start wins and the others find it
 * running (one workflow per chain and stream, whatever the number of workers). A first run starts at the start block.
 */
export async function followChains(client: Client, taskQueue: string, config: ChainIndexerConfig): Promise<void> {
  for (const [chain, stream] of config.chains.flatMap((c) => CHAIN_STREAMS.map((s) => [c, s] as const))) {
    const input: FollowChainInput = {
      chainId: chain.chainId,
      stream,
      cursor: { last: null, recent: [] },
      activityQueue: chainIndexerTaskQueue(taskQueue),
    };
    try {
      await client.workflow.start(followChainWorkflowType, {
        workflowId: followChainWorkflowId(chain.chainId, stream),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Chain indexer of chain ${chain.chainId}: ${stream}`,
      });
    } catch (e) {
      if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
    }
  }
}
