import { DomainError } from '../errors';
import { routeGroup, type RouteDef } from '../http/route';
import { authorizeClaim } from '../intents/claim-authorization';
import { claimSigners } from '../intents/handler-support';
import { claimAuthorizationResponse, statusParams } from '../intents/schemas';
import { readClaimable } from '../intents/store';
import { decodeCursor, presentOpenIntent } from './feed-presenter';
import { openIntentsQuery, openIntentsResponse, openIntentsStreamQuery } from './schemas';
import { feedHead, openIntents } from './store';

const relayerRoute = routeGroup({ tags: ['relayers'], auth: 'relayerKey' });

/** For relayers, with a key the operator issued (docs/relayers.md): the order feed and what a claim needs. */
export const relayerRoutes: RouteDef[] = [
  relayerRoute('get', '/relayer/intents', {
    summary: 'Open intents, in the order they were accepted: each with the signed operation and what its fill must pay',
    query: openIntentsQuery,
    responses: { 200: { description: 'a page of open intents', schema: openIntentsResponse } },
    async handler(_ctx, { query }, s) {
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      if (query.cursor !== undefined && !after) {
        throw new DomainError('VALIDATION_ERROR', 'query.cursor is not a cursor this API issued', {
          details: [{ message: 'is not a cursor this API issued', path: ['query', 'cursor'], code: 'cursor' }],
        });
      }
      const rows = await openIntents(s.db, {
        after,
        destinationChainId: query.destinationChainId,
        token: query.token === undefined ? undefined : BigInt(query.token),
        limit: query.limit,
      });
      const intents = rows.map(presentOpenIntent);
      return { status: 200, body: { intents, nextCursor: intents.at(-1)?.cursor ?? query.cursor ?? null } };
    },
  }),
  relayerRoute('get', '/relayer/intents/stream', {
    summary:
      'Server-sent events of intents as they open (event `intent`, data as a feed entry), resumable with Last-Event-ID',
    query: openIntentsStreamQuery,
    responses: {
      200: {
        description:
          'one `intent` event per newly opened intent (data: a feed entry), its `id` the cursor to resume after; keep-alive comments between',
        mediaType: 'text/event-stream',
      },
    },
    async handler(ctx, { query }, s) {
      const resumeAt = ctx.get('last-event-id');
      const after = resumeAt ? decodeCursor(resumeAt) : await feedHead(s.db);
      if (!after) {
        throw new DomainError('VALIDATION_ERROR', 'Last-Event-ID is not an event id of this feed', {
          details: [{ message: 'is not an event id of this feed', path: ['headers', 'last-event-id'], code: 'cursor' }],
        });
      }
      const filter = {
        destinationChainId: query.destinationChainId,
        token: query.token === undefined ? undefined : BigInt(query.token),
      };
      const body = s.relayerFeeds.stream(ctx.state.relayerId as string, filter, after);
      ctx.set('content-type', 'text/event-stream; charset=utf-8');
      ctx.set('cache-control', 'no-cache');
      // A proxy that buffers responses would hold the events back.
      ctx.set('x-accel-buffering', 'no');
      ctx.req.socket.setNoDelay(true);
      return { status: 200, body };
    },
  }),
  relayerRoute('get', '/relayer/intents/{id}/claim-authorization', {
    summary: "The allocator's authorization to claim any project's intent, as its project reads it",
    params: statusParams,
    responses: {
      200: { description: 'as GET /intent-operation/{id}/claim-authorization', schema: claimAuthorizationResponse },
      404: { description: 'unknown id' },
      409: { description: 'past `expires`, or every chain of the intent released its reservation' },
    },
    async handler(_ctx, { params }, s) {
      const intent = await readClaimable(s.db, BigInt(params.id).toString());
      return {
        status: 200,
        body: await authorizeClaim(intent, claimSigners(s)),
      };
    },
  }),
];
