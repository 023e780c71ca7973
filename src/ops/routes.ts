import { defineRoute, RouteDef, routeGroup } from '../http/route';
import { address, caip2 } from '../http/schema';
import { BLANC, SUPPORTED_VERSIONS, type ApiVersion } from '../http/versions';
import { pingDatabase } from './store';

const health = {
  type: 'object',
  required: ['status', 'allocatorAddress', 'orchestratorAddress', 'lockTag', 'timestamp'],
  properties: {
    status: { const: 'ok' },
    allocatorAddress: address,
    orchestratorAddress: address,
    lockTag: { type: 'string' },
    registryVersion: { type: 'string' },
    timestamp: { type: 'integer' },
  },
} as const;

const chainsResponse = (version: ApiVersion) =>
  ({
    type: 'object',
    required: ['version', 'chains'],
    properties: {
      version: { type: 'string' },
      chains: {
        type: 'array',
        items: {
          type: 'object',
          required: ['id', 'name', 'caip2', 'testnet', 'nativeCurrency', 'settlementLayers', 'tokens'],
          properties: {
            id: version === BLANC ? caip2 : { type: 'integer' },
            name: { type: 'string' },
            caip2: { type: 'string' },
            testnet: { type: 'boolean' },
            nativeCurrency: { type: 'object' },
            settlementLayers: { type: 'array', items: { type: 'string' } },
            tokens: { type: 'array', items: { type: 'object' } },
          },
        },
      },
    },
  }) as const;

export const READY_TIMEOUT_MS = 2000;
/** A polling worker renews its long poll at least once a minute; a task queue without a poll for longer has none. */
const WORKER_POLL_WINDOW_MS = 120_000;
// Values of temporal.api.enums.v1 (TaskQueueKind.NORMAL, TaskQueueType.WORKFLOW).
const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;

const opsRoute = routeGroup({ tags: ['ops'], auth: 'none' });

export const opsRoutes: RouteDef[] = [
  opsRoute('get', '/health', {
    summary: 'Liveness, and the addresses this deployment signs with',
    responses: { 200: { description: 'process is up', schema: health } },
    async handler(_ctx, _input, s) {
      return {
        status: 200,
        body: {
          status: 'ok' as const,
          allocatorAddress: s.allocatorAddress,
          orchestratorAddress: s.orchestratorAddress,
          lockTag: s.defaultLockTag,
          registryVersion: s.registry.version,
          timestamp: Math.floor(Date.now() / 1000),
        },
      };
    },
  }),
  opsRoute('get', '/ready', {
    summary: 'Readiness: PostgreSQL and Temporal answer and a worker polls the task queue',
    responses: { 200: { description: 'ready' }, 503: { description: 'a dependency is down' } },
    async handler(_ctx, _input, s) {
      // Each dependency gets READY_TIMEOUT_MS (at most half the request deadline, so this answer, not the deadline's,
      // names them); the reason goes to the logs, not to whoever can reach this route. A Temporal call left behind
      // ends at the API's call timeout (createTemporalClient).
      const timeoutMs = Math.min(READY_TIMEOUT_MS, s.config.deadlines.requestSeconds * 500);
      const check = (dependency: string, fn: () => Promise<unknown>) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)),
        );
        return Promise.race([fn(), timeout])
          .then(
            () => 'ok',
            (err) => (s.logger.warn({ err, dependency }, 'readiness check failed'), 'down'),
          )
          .finally(() => clearTimeout(timer));
      };
      const [database, temporal, worker] = await Promise.all([
        check('database', () => pingDatabase(s.db)),
        check('temporal', () => s.temporal.workflowService.getSystemInfo({})),
        // Accepted work waits in Temporal until a worker polls the task queue: without one, nothing completes.
        check('worker', async () => {
          const { pollers } = await s.temporal.workflowService.describeTaskQueue({
            namespace: s.config.temporalNamespace,
            taskQueue: { name: s.config.taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
            taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
          });
          const since = Date.now() - WORKER_POLL_WINDOW_MS;
          if (!pollers?.some((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 >= since))
            throw new Error(
              `no worker polled task queue ${s.config.taskQueue} within ${WORKER_POLL_WINDOW_MS / 1000} s`,
            );
        }),
      ]);
      const ok = database === 'ok' && temporal === 'ok' && worker === 'ok';
      return { status: ok ? 200 : 503, body: { status: ok ? 'ready' : 'unavailable', database, temporal, worker } };
    },
  }),
  ...SUPPORTED_VERSIONS.map((version) =>
    defineRoute({
      method: 'get',
      path: '/chains',
      summary: 'Supported chains, tokens and settlement layers',
      tags: ['chains'],
      auth: 'apiKey',
      versions: [version],
      responses: { 200: { description: 'the chain registry', schema: chainsResponse(version) } },
      async handler(_ctx, _input, { registry }) {
        // blanc names every chain by its CAIP-2 id, alps by its number.
        const chains = version === BLANC ? registry.chains.map((c) => ({ ...c, id: c.caip2 })) : registry.chains;
        return { status: 200, body: { version: registry.version, chains } };
      },
    }),
  ),
];
