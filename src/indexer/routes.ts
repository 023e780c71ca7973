import { createHash } from 'node:crypto';
import { ingestIndexerEvents } from '../../workflows';
import { badRequest } from '../http/errors';
import { defineRoute } from '../http/route';
import { ingestBody, ingestResponse } from './schemas';
import type { IndexerEvent } from './types';

export const indexerRoutes = [
  defineRoute<{ events: IndexerEvent[] }, unknown, unknown>({
    method: 'post',
    path: '/indexer/events',
    summary: 'Ingest chain-indexer events (idempotent by event id)',
    tags: ['indexer'],
    auth: 'indexerKey',
    body: ingestBody,
    responses: { 200: { description: 'events recorded', schema: ingestResponse } },
    async handler(ctx, { body }, { registry, temporal, config, metrics }) {
      body.events.forEach((event, index) => {
        if (!('chainId' in event)) return;
        if (!registry.chain(event.chainId)) throw badRequest(`Unsupported chain ${event.chainId}`, { index, id: event.id });
        if ('token' in event && !registry.token(event.chainId, event.token)) {
          throw badRequest(`Token ${event.token} not supported on chain ${event.chainId}`, { index, id: event.id });
        }
      });
      const events = body.events.map((e) => (e.type === 'balance' ? { ...e, blockNumber: String(e.blockNumber) } : e));
      // Same batch, same workflow id: a retried POST joins the running ingestion instead of starting another.
      const workflowId = `indexer-batch-${createHash('sha256').update(JSON.stringify(events)).digest('hex')}`;
      metrics.workflowStarts.inc({ workflow: 'ingestIndexerEvents' });
      const result = await temporal.workflow.execute(ingestIndexerEvents, {
        workflowId,
        taskQueue: config.taskQueue,
        args: [events],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowExecutionTimeout: '5 minutes',
      });
      ctx.set('x-workflow-id', workflowId);
      return { status: 200, body: result };
    },
  }),
];
