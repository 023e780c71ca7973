import type http from 'node:http';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createWalletClient, erc20Abi, getAddress, http as rpc, maxUint256, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadChainRegistry } from '../chains/registry';
import { rpcClient } from '../chains/rpc';
import type { Logger } from '../logger';
import { createTemporalClient } from '../temporal-sdk/client';
import {
  relayIntentWorkflowType,
  relayWorkflowId,
  type FeedIntent,
  type RelayInput,
} from '../../workflows/relayer/contract';
import { createRelayActivities } from './activities';
import type { RelayerBotConfig } from './config';
import { followFeed } from './feed';
import { createRelayerMetrics, serveMetrics } from './metrics';
import { RelayerApi } from './service';

export interface RelayerOptions {
  config: RelayerBotConfig;
  temporalAddress: string;
  namespace: string;
  chainRegistryFile?: string;
  log: Logger;
}

/** Every filler may take every inventory token of its chain: approved once, for good, before anything is filled. */
async function approveInventory(config: RelayerBotConfig, client: (chainId: number) => PublicClient, log: Logger) {
  const account = privateKeyToAccount(config.privateKey);
  for (const chain of config.chains) {
    if (!chain.filler) continue;
    const wallet = createWalletClient({ account, transport: rpc(chain.rpcUrl) });
    for (const token of chain.tokens) {
      const args = [account.address, chain.filler] as const;
      const allowance = await client(chain.chainId).readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'allowance',
        args,
      });
      if (allowance >= maxUint256 / 2n) continue;
      const hash = await wallet.writeContract({
        chain: null,
        address: token,
        abi: erc20Abi,
        functionName: 'approve',
        args: [chain.filler, maxUint256],
      });
      await client(chain.chainId).waitForTransactionReceipt({ hash });
      log.info({ chainId: chain.chainId, token, filler: chain.filler }, 'inventory approved to the filler');
    }
  }
}

/**
 * `npm run relayer`: a worker of the relayer's workflows (workflows/relayer/) on its own task queue, and the order
 * feed followed, each open intent started as one `relayIntent` workflow (id from the intent's, so an intent seen
 * twice starts once). Resolves when `signal` aborts and the worker has stopped.
 */
export async function runRelayer(opts: RelayerOptions, signal: AbortSignal): Promise<void> {
  const { config, log } = opts;
  const clients = new Map(config.chains.map((c) => [c.chainId, rpcClient(c.rpcUrl, { pollingInterval: 250 })]));
  const client = (chainId: number) => {
    const c = clients.get(chainId);
    if (!c) throw new Error(`chain ${chainId} has no RPC_URL_${chainId}`);
    return c;
  };
  const metrics = createRelayerMetrics();
  const server: http.Server | undefined = config.metricsPort ? serveMetrics(metrics, config.metricsPort) : undefined;
  const account = privateKeyToAccount(config.privateKey);
  await approveInventory(config, client, log);
  const api = new RelayerApi(config.apiUrl, config.relayerKey);
  const activities = createRelayActivities({
    config,
    account,
    client,
    api,
    registry: loadChainRegistry(opts.chainRegistryFile),
    metrics,
    log,
  });
  const connection = await NativeConnection.connect({ address: opts.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: config.taskQueue,
    workflowsPath: require.resolve('../../workflows/relayer'),
    activities,
  });
  const temporal = createTemporalClient(opts.temporalAddress, opts.namespace);
  const start = async (intent: FeedIntent) => {
    const input: RelayInput = { intent, stepSeconds: config.stepSeconds, retrySeconds: config.retrySeconds };
    for (let wait = 500; ; wait = Math.min(wait * 2, 30_000)) {
      try {
        await temporal.workflow.start(relayIntentWorkflowType, {
          taskQueue: config.taskQueue,
          workflowId: relayWorkflowId(config.taskQueue, intent.id),
          args: [input],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
        log.info({ intentId: intent.id }, 'relaying');
        return;
      } catch (e) {
        if (e instanceof WorkflowExecutionAlreadyStartedError) return;
        if (signal.aborted) throw e;
        log.warn({ intentId: intent.id, err: (e as Error).message }, 'workflow not started: trying again');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };
  signal.addEventListener('abort', () => worker.shutdown(), { once: true });
  // Whatever the log level: an operator (and the walk-through's test) sees that it is up, and as whom.
  console.log(
    `Relayer up: ${getAddress(account.address)} follows ${config.apiUrl}/relayer/intents/stream, task queue ${config.taskQueue}`,
  );
  await Promise.all([worker.run(), followFeed(api, start, log, signal)]);
  server?.close();
  await temporal.connection.close();
  await connection.close();
}
