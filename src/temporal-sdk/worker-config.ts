import { ints } from '../env';

/**
 * What a worker process keeps in memory. Temporal keeps a workflow between its tasks until its cache is full, and its
 * default size grows with the heap limit (2,310 workflows on a 4 GiB heap), at about 0.1 MiB each between the workflow
 * thread's heap and the SDK core's native memory: the backlog of workflow tasks after a Temporal outage filled it at
 * once and the worker kept the memory (bench/RESULTS.md, Worker memory).
 *
 * `workflowBundle`: a file `bundleWorkflowCode` wrote from this code's `workflows/`; a worker started with it skips the
 * bundling every other start does (seconds of CPU): `npm run build` writes one for the image, the tests one per run.
 */
export type WorkerConfig = ReturnType<typeof workerConfig>;

export const workerConfig = (env: NodeJS.ProcessEnv) => ({
  ...ints(env, {
    // At least 2: the SDK's floor for a workflow cache.
    maxCachedWorkflows: ['WORKER_MAX_CACHED_WORKFLOWS', 500, 2, 100_000],
  }),
  workflowBundle: env.WORKFLOW_BUNDLE || undefined,
});
