import { WorkflowNotFoundError } from '@temporalio/client';
import { DomainError } from '../errors';
import { project } from '../http/project';
import { routeGroup, type RouteDef } from '../http/route';
import { isStartQueued } from '../outbox/store';
import { retryNowSignal } from '../../workflows/contracts/webhook-delivery';
import { addEndpoint, enableEndpoint, listEndpoints, removeEndpoint, rotateSecret } from './endpoint-store';
import { decodeCursor, getEvent, listEvents, replayFailed, REPLAY_LIMIT, resendEvent } from './event-store';
import * as schema from './schemas';
import { emitSampleEvent } from './sample-event';
import type { WebhookType } from './types';

const webhookRoute = routeGroup({ tags: ['webhooks'], auth: 'apiKey' });

/** Under /deposit-processor: error bodies are `{error, code?, details?}` (src/http/error-bodies.ts). */
export const webhookRoutes: RouteDef[] = [
  webhookRoute('post', '/webhooks/test', {
    summary:
      'Create a test event of the given type (payload marked test) and deliver it to the endpoints that take the type',
    body: schema.testBody,
    responses: { 200: { description: 'the event was recorded and its delivery started', schema: schema.testResponse } },
    async handler(ctx, { body }, s) {
      const eventId = await emitSampleEvent(s.db, project(ctx), body.type);
      return { status: 200, body: { message: 'Test webhook event created', eventId } };
    },
  }),
  webhookRoute('get', '/webhooks/events', {
    summary: "The project's webhook events, newest first, with cursor paging and filters",
    query: schema.listQuery,
    responses: { 200: { description: 'a page of events', schema: schema.listResponse } },
    async handler(ctx, { query }, s) {
      const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !before) {
        throw new DomainError('VALIDATION_ERROR', 'query.cursor is not a cursor this API issued', {
          details: [{ message: 'is not a cursor this API issued', path: ['query', 'cursor'], code: 'cursor' }],
        });
      }
      const page = await listEvents(s.db, project(ctx), {
        ...query,
        type: query.type as WebhookType | undefined,
        before,
      });
      return { status: 200, body: page };
    },
  }),
  webhookRoute('get', '/webhooks/events/{eventId}', {
    summary: 'One event with its deliveries (per endpoint) and every attempt',
    params: schema.eventParams,
    responses: {
      200: { description: 'the event', schema: schema.eventDetail },
      404: { description: 'no such event in this project' },
    },
    async handler(ctx, { params }, s) {
      const event = await getEvent(s.db, project(ctx), params.eventId);
      if (!event) throw new DomainError('NOT_FOUND', 'Webhook event not found');
      return { status: 200, body: event };
    },
  }),
  webhookRoute('post', '/webhooks/events/{eventId}/resend', {
    summary: 'Deliver an event again under its original eventId (a pending one is attempted now)',
    params: schema.eventParams,
    responses: {
      202: { description: 'redelivery under way', schema: schema.resendResponse },
      404: { description: 'no such event in this project' },
      409: { description: 'no enabled endpoint takes its type' },
    },
    async handler(ctx, { params }, s) {
      let resend = await resendEvent(s.db, project(ctx), params.eventId);
      if (!resend) throw new DomainError('NOT_FOUND', 'Webhook event not found');
      if (resend.kind === 'nudge') {
        const nudged = await Promise.all(
          resend.workflowIds.map(async (workflowId) => {
            const signalled = await s.temporal.workflow
              .getHandle(workflowId)
              .signal(retryNowSignal)
              .then(
                () => true,
                (e) => {
                  if (e instanceof WorkflowNotFoundError) return false;
                  throw e;
                },
              );
            return signalled || isStartQueued(s.db, workflowId);
          }),
        );
        // A retry workflow gone without finishing (terminated by an operator): a new round.
        if (!nudged.every(Boolean)) resend = (await resendEvent(s.db, project(ctx), params.eventId, true))!;
      }
      if (resend.kind === 'no-endpoint')
        throw new DomainError('CONFLICT', 'No enabled webhook endpoint takes this event type', {
          reason: 'WEBHOOK_NO_ENDPOINT',
        });
      return {
        status: 202,
        body: {
          message: 'Webhook event redelivery started',
          eventId: resend.eventId,
          status: resend.status,
          attempts: resend.attempts,
        },
      };
    },
  }),
  webhookRoute('post', '/webhooks/replay', {
    summary: `Deliver again every failed event created in [since, until) (at most ${REPLAY_LIMIT} per call, oldest first)`,
    body: schema.replayBody,
    responses: { 202: { description: 'how many events were reopened', schema: schema.replayResponse } },
    async handler(ctx, { body }, s) {
      const count = await replayFailed(s.db, project(ctx), body.since, body.until);
      return { status: 202, body: { message: `${count} failed event(s) are being delivered again`, count } };
    },
  }),
  webhookRoute('get', '/webhooks/endpoints', {
    summary: "The project's webhook endpoints and their health (disabled ones say why)",
    responses: {
      200: {
        description: '{endpoints}',
        schema: {
          type: 'object',
          required: ['endpoints'],
          properties: { endpoints: { type: 'array', items: schema.endpoint } },
        },
      },
    },
    async handler(ctx, _input, s) {
      return { status: 200, body: { endpoints: await listEndpoints(s.db, project(ctx)) } };
    },
  }),
  webhookRoute('post', '/webhooks/endpoints', {
    summary:
      'Add an endpoint (all types unless `types` is given); the answer carries its signing secret, shown only here',
    body: schema.endpointBody,
    responses: {
      201: { description: 'the endpoint with its secret', schema: schema.endpointWithSecret },
      400: { description: 'url refused (scheme, or a non-public target)' },
    },
    async handler(ctx, { body }, s) {
      return {
        status: 201,
        body: await addEndpoint(s.db, project(ctx), body.url, body.types ?? null, s.config.webhooks),
      };
    },
  }),
  webhookRoute('delete', '/webhooks/endpoints/{endpointId}', {
    summary: 'Remove an endpoint; deliveries to it stop at their next attempt',
    params: schema.endpointParams,
    responses: { 200: { description: '{message}' }, 404: { description: 'no such endpoint in this project' } },
    async handler(ctx, { params }, s) {
      await removeEndpoint(s.db, project(ctx), params.endpointId);
      return { status: 200, body: { message: 'Webhook endpoint removed' } };
    },
  }),
  webhookRoute('post', '/webhooks/endpoints/{endpointId}/rotate-secret', {
    summary: 'Replace the signing secret; the previous one keeps signing alongside for the configured overlap',
    params: schema.endpointParams,
    responses: {
      200: { description: 'the endpoint with its new secret', schema: schema.endpointWithSecret },
      404: { description: 'no such endpoint in this project' },
    },
    async handler(ctx, { params }, s) {
      return {
        status: 200,
        body: await rotateSecret(s.db, project(ctx), params.endpointId, s.config.webhooks.secretOverlapSeconds),
      };
    },
  }),
  webhookRoute('post', '/webhooks/endpoints/{endpointId}/enable', {
    summary: 'Enable a disabled endpoint again (then replay what failed meanwhile)',
    params: schema.endpointParams,
    responses: {
      200: { description: 'the endpoint', schema: schema.endpoint },
      404: { description: 'no such endpoint in this project' },
    },
    async handler(ctx, { params }, s) {
      return { status: 200, body: await enableEndpoint(s.db, project(ctx), params.endpointId) };
    },
  }),
];
