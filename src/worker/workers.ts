import { DefaultLogger, LogLevel, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { ActivityDeps, createActivities } from '../../activities';
import { webhookTaskQueue } from '../../workflows/contracts/webhook-delivery';
import { heartbeating } from '../temporal-sdk/heartbeat';
import { chainIndexerTaskQueue } from '../../workflows/contracts/follow-chain';
import { createLeaseLoop, type LeaseLoop } from '../webhooks/lease-loop';
import { FunnelFolder } from '../analytics/folder';
import { workerSlots } from '../webhooks/slots';
import { processTracing } from '../tracing/start';

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
}

/** The SDK logs at INFO by default (including the webpack report); follow LOG_LEVEL instead. */
export function installRuntime(level: string): void {
  const map: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' };
  Runtime.install({ logger: new DefaultLogger(map[level] ?? 'WARN') });
}

/**
 * Two pollers on one connection: workflows and lifecycle activities on the task queue (at most
 * WORKER_MAX_CACHED_WORKFLOWS workflows kept in memory between their tasks: src/temporal-sdk/worker-config.ts), and webhook retry
 * attempts on their own queue with their own slots, so slow receivers can never take the slots intents need. Beside
 * them the webhook lease loop makes every delivery's first attempt from the table (src/webhooks/lease-loop.ts), sharing the
 * process's attempt slots with the retry activity, and the funnel's fold loop keeps its rollup (src/analytics/folder.ts).
 */
export async function createWorkers(
  opts: WorkerOptions,
): Promise<{ workers: Worker[]; connection: NativeConnection; leaseLoop: LeaseLoop; folder: FunnelFolder }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const slots = workerSlots(opts.deps.config.webhooks);
  const activities = createActivities(opts.deps, slots);
  const { attemptWebhook, readChainRange, sweepOutbox, ...rest } = activities;
  const lifecycle = { ...rest, sweepOutbox: heartbeating(sweepOutbox) };
  const traced = processTracing()?.temporalWorker; // workflow and activity spans, with tracing on (docs/tracing.md)
  // A prebuilt bundle holds no tracing interceptors: with tracing on, the worker bundles the workflows with them.
  const bundle = traced ? undefined : opts.deps.config.worker.workflowBundle;
  const workers = await Promise.all([
    Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: opts.taskQueue,
      ...(bundle ? { workflowBundle: { codePath: bundle } } : { workflowsPath: require.resolve('../../workflows') }),
      activities: lifecycle,
      maxCachedWorkflows: opts.deps.config.worker.maxCachedWorkflows,
      ...traced,
    }),
    Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: webhookTaskQueue(opts.taskQueue),
      activities: { attemptWebhook },
      maxConcurrentActivityTaskExecutions: opts.deps.config.webhooks.concurrency,
      ...traced,
    }),
    // The chain indexer's reads, polled only by workers that follow chains (docs/chain-indexer.md).
    ...(opts.deps.config.chainIndexer.chains.length
      ? [
          Worker.create({
            connection,
            namespace: opts.namespace,
            taskQueue: chainIndexerTaskQueue(opts.taskQueue),
            activities: { readChainRange: heartbeating(readChainRange) },
            ...traced,
          }),
        ]
      : []),
  ]);
  const leaseLoop = createLeaseLoop(opts.deps.db, opts.deps.config.webhooks, slots, opts.deps.outbox, opts.deps.log);
  return { workers, connection, leaseLoop, folder: new FunnelFolder(opts.deps.db, opts.deps.log) };
}
