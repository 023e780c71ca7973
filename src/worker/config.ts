import { ints } from '../env';

/**
 * What a worker process keeps in memory. Temporal's default workflow cache is sized from the heap limit (about 2,300
 * workflows on a 4 GiB heap): it only grows, each cached workflow costs about 0.2 MiB between the workflow thread's
 * heap and the SDK core's native memory, and a burst of workflow tasks (the timers and signals that piled up during a
 * Temporal outage) fills it at once, so the process kept hundreds of MiB it never gave back.
 */
export type WorkerConfig = ReturnType<typeof workerConfig>;

export const workerConfig = (env: NodeJS.ProcessEnv) => ints(env, {
  // At least 2: the SDK's floor for a workflow cache.
  maxCachedWorkflows: ['WORKER_MAX_CACHED_WORKFLOWS', 500, 2, 100_000],
});
