import { DefaultLogger, LogLevel, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { ActivityDeps, createActivities } from '../../activities';
import { webhookTaskQueue } from '../../workflows/webhook-delivery';

export interface WorkerOptions { address: string; namespace: string; taskQueue: string; deps: ActivityDeps }

/** The SDK logs at INFO by default (including the webpack report); follow LOG_LEVEL instead. */
export function installRuntime(level: string): void {
  const map: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' };
  Runtime.install({ logger: new DefaultLogger(map[level] ?? 'WARN') });
}

/**
 * Two pollers on one connection: workflows and lifecycle activities on the task queue, and webhook delivery
 * attempts on their own queue with their own slots, so slow receivers can never take the slots intents need.
 */
export async function createWorkers(opts: WorkerOptions): Promise<{ workers: Worker[]; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const activities = createActivities(opts.deps);
  const { attemptWebhook, ...lifecycle } = activities;
  const workers = await Promise.all([
    Worker.create({ connection, namespace: opts.namespace, taskQueue: opts.taskQueue, workflowsPath: require.resolve('../../workflows'), activities: lifecycle }),
    Worker.create({
      connection,
      namespace: opts.namespace,
      taskQueue: webhookTaskQueue(opts.taskQueue),
      activities: { attemptWebhook },
      maxConcurrentActivityTaskExecutions: opts.deps.config.webhooks.concurrency,
    }),
  ]);
  return { workers, connection };
}
