import { project } from '../http/project';
import { routeGroup } from '../http/route';
import { ALPS } from '../http/versions';
import { presentAlpsStatus } from './alps-presenter';
import { authorizeClaim } from './claim-authorization';
import { claimSigners, quoteDeps, splitOrRefuse, submitDeps } from './handler-support';
import { createQuote, quoteCost } from './quote-service';
import {
  claimAuthorizationResponse,
  intentInput,
  splitBody,
  statusParams,
  statusQuery,
  submitBody,
  submitResponse,
} from './schemas';
import { readClaimable, readIntent } from './store';
import { submitIntent } from './submit';
import { invalidSignature, isEchoOf } from './verify';

/** The 2026-01.alps intent routes (deprecated, frozen): the 1.x client's wire shapes over the shared intent core. */

const intentRoute = routeGroup({ tags: ['intents'], auth: 'apiKey', versions: [ALPS] });

export const intentRoutes = [
  intentRoute('post', '/intents/route', {
    summary: 'Quote an intent: a signable operation and its cost (stored for INTENT_QUOTE_TTL_SECONDS)',
    body: intentInput,
    responses: { 200: { description: '{intentOp, intentCost, tokenRequirements?}' } },
    async handler(ctx, { body }, s) {
      const { intentOp, intentCost, tokenRequirements } = await createQuote(s.db, body, project(ctx), quoteDeps(s));
      return { status: 200, body: { intentOp, intentCost, ...(tokenRequirements ? { tokenRequirements } : {}) } };
    },
  }),
  intentRoute('post', '/intents/cost', {
    summary: 'The cost of the cheapest route for an intent (nothing is stored)',
    body: intentInput,
    responses: { 200: { description: 'intent cost' } },
    async handler(ctx, { body }, s) {
      return { status: 200, body: await quoteCost(s.db, body, quoteDeps(s), project(ctx)) };
    },
  }),
  intentRoute('post', '/intent-operations', {
    summary: 'Submit a signed intent operation (idempotent: the same operation returns the same id)',
    body: submitBody,
    responses: {
      201: { description: 'accepted', schema: submitResponse },
      200: { description: 'dry run: verified, nothing changed', schema: submitResponse },
    },
    async handler(ctx, { body }, s) {
      const signed = body.signedIntentOp;
      // The client echoes the whole operation; verification proves it is the stored one, unchanged.
      const result = await submitIntent(submitDeps(s), project(ctx), BigInt(signed.nonce).toString(), (stored) => {
        if (!isEchoOf(signed, stored)) throw invalidSignature();
        return signed;
      });
      return { status: result.dryRun ? 200 : 201, body: { result: { id: result.id, status: result.status } } };
    },
  }),
  intentRoute('get', '/intent-operation/{id}', {
    summary: 'Status of a submitted intent (full=true adds the operation, signatures and transition history)',
    params: statusParams,
    query: statusQuery,
    responses: { 200: { description: 'intent operation status record' } },
    async handler(ctx, { params, query }, s) {
      const intent = await readIntent(s.db, BigInt(params.id).toString(), project(ctx));
      return { status: 200, body: presentAlpsStatus(intent, query.full) };
    },
  }),
  intentRoute('get', '/intent-operation/{id}/claim-authorization', {
    summary:
      "The allocator's authorization to claim an intent through The Compact on each origin chain (allocatorData), with what the claim needs",
    params: statusParams,
    responses: {
      200: {
        description: 'per origin element: multichainClaim or exogenousClaim, the sponsor signature and allocatorData',
        schema: claimAuthorizationResponse,
      },
      404: { description: "unknown id, or another project's intent" },
      409: { description: 'past `expires`, or every chain of the intent released its reservation' },
    },
    async handler(ctx, { params }, s) {
      const intent = await readClaimable(s.db, BigInt(params.id).toString(), project(ctx));
      return {
        status: 200,
        body: await authorizeClaim(intent, claimSigners(s)),
      };
    },
  }),
  intentRoute('post', '/intents/split', {
    summary: 'Split requested amounts into parts that one relayer each can fill',
    body: splitBody,
    responses: { 200: { description: '{intents: [{token: amount}]}' }, 422: { description: 'INSUFFICIENT_LIQUIDITY' } },
    async handler(_ctx, { body }, s) {
      return {
        status: 200,
        body: { intents: await splitOrRefuse(s, body.chainId, body.tokens, body.settlementLayers) },
      };
    },
  }),
];
