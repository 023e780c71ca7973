import { crashPoint } from '../faults';
import { DomainError } from '../errors';
import { defineRoute } from '../http/route';
import { batchConflict } from './consistency';
import { ingestEvents } from './ingest';
import { ingestBody, ingestQuery, ingestResponse } from './schemas';
import { DEPOSIT_EVENT_TYPES } from '../deposits/indexer-events';
import type { IndexerEvent } from './types';
import { leftToSweeper } from '../outbox/left-to-sweeper';

export const indexerRoutes = [
  defineRoute({
    method: 'post',
    path: '/indexer/events',
    summary: 'Ingest chain-indexer events (idempotent by event id); answers once the batch is durable',
    tags: ['indexer'],
    auth: 'indexerKey',
    body: ingestBody,
    query: ingestQuery,
    responses: {
      200: {
        description:
          'events recorded and applied to balances; lifecycle events queued for delivery; events contradicting what is stored refused',
        schema: ingestResponse,
      },
    },
    async handler(_ctx, { body, query }, { registry, db, outbox, logger, metrics, defaultLockTag, config, clock }) {
      // Block numbers travel as decimal strings from here on (the wire accepts integers too): what is left is the
      // domain's event, which TypeScript cannot follow through the test. Only events with an integer are copied.
      const events = body.events.map(
        (e) =>
          ('blockNumber' in e && typeof e.blockNumber === 'number'
            ? { ...e, blockNumber: String(e.blockNumber) }
            : e) as IndexerEvent,
      );
      // Events of one batch mostly share their chain and token: a run of the pair found last is not looked up again.
      let found: { chainId: number; token: string } | undefined;
      events.forEach((event, index) => {
        if (!('chainId' in event)) return;
        if ('token' in event && event.chainId === found?.chainId && event.token === found.token) return;
        if (!registry.chain(event.chainId))
          throw new DomainError('VALIDATION_ERROR', `Unsupported chain ${event.chainId}`, {
            context: { index, id: event.id },
          });
        // Deposits of unsupported tokens are recorded (and rejected with TOKEN-1), not refused here.
        if (
          'token' in event &&
          !DEPOSIT_EVENT_TYPES.includes(event.type) &&
          !registry.token(event.chainId, event.token)
        ) {
          throw new DomainError('VALIDATION_ERROR', `Token ${event.token} not supported on chain ${event.chainId}`, {
            context: { index, id: event.id },
          });
        }
        if ('token' in event && !DEPOSIT_EVENT_TYPES.includes(event.type))
          found = { chainId: event.chainId, token: event.token };
      });
      const conflict = batchConflict(events, defaultLockTag);
      if (conflict)
        throw new DomainError('VALIDATION_ERROR', conflict.message, { context: { events: conflict.events } });
      const { result, signals, starts } = await ingestEvents(db, events, defaultLockTag, { registry, config }, clock());
      for (const r of result.refused ?? []) metrics.indexerRefused.inc({ type: r.type, reason: r.reason });
      if (result.refused) logger.warn({ refused: result.refused }, 'indexer events refused');
      crashPoint('ingest-after-commit');
      // Durable from here: what this process does not deliver, the outbox sweeper does.
      const delivery = outbox.deliver(signals);
      // Deposit workflows and webhook deliveries the batch queued, started concurrently.
      const starting = Promise.all(
        starts.map((start) =>
          outbox.start(start).catch(leftToSweeper(logger, 'start', { workflowId: start.workflowId })),
        ),
      );
      if (query.wait) await Promise.all([delivery, starting]);
      else delivery.catch(leftToSweeper(logger, 'lifecycle signals'));
      return { status: 200, body: result };
    },
  }),
];
