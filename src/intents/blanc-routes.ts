import { fromCaip2 } from '../chains/registry';
import { project } from '../http/project';
import { routeGroup } from '../http/route';
import { BLANC } from '../http/versions';
import { presentBlancStatus, presentRoute, quoteInput, withSignatures } from './blanc-presenter';
import {
  quoteRequest,
  quoteResponse,
  splitRequest,
  statusParams,
  statusResponse,
  submitRequest,
  submitResponse,
} from './blanc-schemas';
import { quoteDeps, splitOrRefuse, submitDeps } from './handler-support';
import { createQuotes } from './quote-service';
import { readIntent } from './store';
import { submitIntent } from './submit';

const blancRoute = routeGroup({ tags: ['intents'], auth: 'apiKey', versions: [BLANC] });

/** The 2026-04.blanc intent routes: the same quotes, submits and lifecycles as alps, in the current wire format. */
export const blancIntentRoutes = [
  blancRoute('post', '/quotes', {
    summary:
      'Quote an intent: every route the balances and settlement layers allow, best first (routes[0] is recommended)',
    body: quoteRequest,
    responses: {
      200: {
        description: 'ranked routes, each a stored intent to sign and submit before expiresAt',
        schema: quoteResponse,
      },
    },
    async handler(ctx, { body }, s) {
      const input = quoteInput(body);
      const issued = await createQuotes(s.db, input, project(ctx), quoteDeps(s));
      return {
        status: 200,
        body: {
          routes: issued.map((q) => presentRoute(q, input.destinationChainId, s.config.intents.compactSigningContract)),
        },
      };
    },
  }),
  blancRoute('post', '/intents', {
    summary: 'Submit a quoted route with its signatures (idempotent: the same intent returns the same id)',
    body: submitRequest,
    responses: { 201: { description: 'accepted', schema: submitResponse } },
    async handler(ctx, { body }, s) {
      const result = await submitIntent(submitDeps(s), project(ctx), BigInt(body.intentId).toString(), (stored) =>
        withSignatures(stored, body.signatures),
      );
      return { status: 201, body: { intentId: result.id } };
    },
  }),
  blancRoute('get', '/intents/{id}', {
    summary: 'Status of a submitted intent',
    params: statusParams,
    responses: { 200: { description: 'intent status', schema: statusResponse } },
    async handler(ctx, { params }, s) {
      return {
        status: 200,
        body: presentBlancStatus(await readIntent(s.db, BigInt(params.id).toString(), project(ctx))),
      };
    },
  }),
  blancRoute('post', '/intents/splits', {
    summary: 'Split requested amounts into parts that one relayer each can fill',
    body: splitRequest,
    responses: {
      200: { description: '{intents: [{token: amount}]}' },
      422: { description: 'INSUFFICIENT_LIQUIDITY, with availableIntents and unfillable in details' },
    },
    async handler(_ctx, { body }, s) {
      return {
        status: 200,
        body: { intents: await splitOrRefuse(s, fromCaip2(body.chainId)!, body.tokens, body.settlementLayers) },
      };
    },
  }),
];
