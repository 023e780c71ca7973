import { defineRoute, RouteDef } from '../http/route';
import { address, Schema } from '../http/schema';

const health: Schema = {
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
};

const chainsResponse: Schema = {
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
          id: { type: 'integer' },
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
};

export const opsRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/health',
    summary: 'Liveness, and the addresses this deployment signs with',
    tags: ['ops'],
    auth: 'none',
    responses: { 200: { description: 'process is up', schema: health } },
    async handler(_ctx, _input, s) {
      return {
        status: 200,
        body: {
          status: 'ok',
          allocatorAddress: s.allocatorAddress,
          orchestratorAddress: s.orchestratorAddress,
          lockTag: s.defaultLockTag,
          registryVersion: s.registry.version,
          timestamp: Math.floor(Date.now() / 1000),
        },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ready',
    summary: 'Readiness: Postgres and Temporal both answer',
    tags: ['ops'],
    auth: 'none',
    responses: { 200: { description: 'ready' }, 503: { description: 'a dependency is down' } },
    async handler(_ctx, _input, s) {
      const check = async (fn: () => Promise<unknown>) => fn().then(() => 'ok', (e: Error) => `down: ${e.message}`);
      const [database, temporal] = await Promise.all([
        check(() => s.db.query('SELECT 1')),
        check(() => s.temporal.connection.withDeadline(Date.now() + 2000, () => s.temporal.workflowService.getSystemInfo({}))),
      ]);
      const ok = database === 'ok' && temporal === 'ok';
      return { status: ok ? 200 : 503, body: { status: ok ? 'ready' : 'unavailable', database, temporal } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/chains',
    summary: 'Supported chains, tokens and settlement layers',
    tags: ['chains'],
    auth: 'apiKey',
    responses: { 200: { description: 'the chain registry', schema: chainsResponse } },
    async handler(_ctx, _input, { registry }) {
      return { status: 200, body: { version: registry.version, chains: registry.chains } };
    },
  }),
];
