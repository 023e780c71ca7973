import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  chainIndexerTaskQueue,
  followChainWorkflowId,
  followChainWorkflowType,
  type FollowChainInput,
} from '../../workflows/contracts/follow-chain';
import type { ChainIndexerConfig } from './config';

/**
 * Every worker that follows chains starts their workflows at start; the first start wins and the others find it
 * running (one workflow per chain, whatever the number of workers). A chain's first run starts at its start block.
 */
export async function followChains(client: Client, taskQueue: string, config: ChainIndexerConfig): Promise<void> {
  for (const chain of config.chains) {
    const input: FollowChainInput = {
      chainId: chain.chainId,
      cursor: { last: null, recent: [] },
      activityQueue: chainIndexerTaskQueue(taskQueue),
    };
    try {
      await client.workflow.start(followChainWorkflowType, {
        workflowId: followChainWorkflowId(chain.chainId),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Chain indexer of chain ${chain.chainId}`,
      });
    } catch (e) {
      if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
    }
  }
}
