import { DefaultLogger, LogLevel, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { ActivityDeps, createActivities } from '../../activities';

export interface WorkerOptions { address: string; namespace: string; taskQueue: string; deps: ActivityDeps }

/** The SDK logs at INFO by default (including the webpack report); follow LOG_LEVEL instead. */
export function installRuntime(level: string): void {
  const map: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' };
  Runtime.install({ logger: new DefaultLogger(map[level] ?? 'WARN') });
}

export async function createWorker(opts: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: createActivities(opts.deps),
  });
  return { worker, connection };
}
