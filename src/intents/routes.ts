import { getAddress } from 'viem';
import { crashPoint } from '../faults';
import { ApiError, badRequest } from '../http/errors';
import { defineRoute } from '../http/route';
import type { Services } from '../http/services';
import type { IntentInput } from './quote';
import { createQuote, quoteCost, QuoteOutcome } from './quote-service';
import { intentInput, splitBody, statusParams, statusQuery, submitBody, submitResponse } from './schemas';
import { splitIntents } from './split';
import { submitSignedIntent } from './submit';
import type { SignedIntentOp } from './types';

const unwrap = <T>(outcome: QuoteOutcome<T>): T => {
  if (!outcome.ok) throw badRequest(outcome.message);
  return outcome.value;
};

const quoteDeps = (s: Services) => ({ registry: s.registry, config: s.config, lockTag: s.defaultLockTag, orchestrator: s.orchestrator, nonces: s.nonces });

export const intentRoutes = [
  defineRoute<IntentInput, unknown, unknown>({
    method: 'post',
    path: '/intents/route',
    summary: 'Quote an intent: a signable operation and its cost (stored for INTENT_QUOTE_TTL_SECONDS)',
    tags: ['intents'],
    auth: 'apiKey',
    body: intentInput,
    responses: { 200: { description: '{intentOp, intentCost, tokenRequirements?}' } },
    async handler(ctx, { body }, s) {
      return { status: 200, body: unwrap(await createQuote(s.db, body, ctx.state.projectId, quoteDeps(s))) };
    },
  }),
  defineRoute<IntentInput, unknown, unknown>({
    method: 'post',
    path: '/intents/cost',
    summary: 'The cost of the cheapest route for an intent (nothing is stored)',
    tags: ['intents'],
    auth: 'apiKey',
    body: intentInput,
    responses: { 200: { description: 'intent cost' } },
    async handler(_ctx, { body }, s) {
      return { status: 200, body: unwrap(await quoteCost(s.db, body, quoteDeps(s))) };
    },
  }),
  defineRoute<{ signedIntentOp: SignedIntentOp }, unknown, unknown>({
    method: 'post',
    path: '/intent-operations',
    summary: 'Submit a signed intent operation (idempotent: the same operation returns the same id)',
    tags: ['intents'],
    auth: 'apiKey',
    body: submitBody,
    responses: { 201: { description: 'accepted', schema: submitResponse }, 200: { description: 'dry run: verified, nothing changed', schema: submitResponse } },
    async handler(ctx, { body }, s) {
      const deps = { db: s.db, verify: { orchestratorAddress: s.orchestratorAddress, compactContract: s.config.intents.compactSigningContract, env: process.env }, fillGraceSeconds: s.config.intents.fillGraceSeconds };
      const { id, status, start } = await submitSignedIntent(deps, ctx.state.projectId, body.signedIntentOp);
      if (status === 'VERIFIED') return { status: 200, body: { result: { id, status } } };
      crashPoint('submit-after-commit');
      if (start) {
        s.metrics.workflowStarts.inc({ workflow: 'intentLifecycle' });
        // The intent is recorded with its start queued: if Temporal is unreachable now, the outbox sweeper starts it.
        await s.outbox.start(start).catch((err) => s.logger.warn({ err, id }, 'lifecycle start deferred to the outbox sweeper'));
      }
      return { status: 201, body: { result: { id, status } } };
    },
  }),
  defineRoute<unknown, { full: boolean }, { id: string }>({
    method: 'get',
    path: '/intent-operation/{id}',
    summary: 'Status of a submitted intent (full=true adds the operation, signatures and transition history)',
    tags: ['intents'],
    auth: 'apiKey',
    params: statusParams,
    query: statusQuery,
    responses: { 200: { description: 'intent operation status record' } },
    async handler(ctx, { params, query }, s) {
      const id = BigInt(params.id).toString();
      const [row]: {
        status: string; account: string; destination_chain_id: string; origin_chain_ids: string[]; fill: { transactionHash: string; timestamp: number } | null;
        claims: Record<string, { transactionHash: string; timestamp: number }>; operation: unknown; signatures: unknown; history: unknown;
      }[] = await s.db.query(
        `SELECT i.status, i.account, i.destination_chain_id, i.origin_chain_ids, i.fill, i.claims, i.operation, i.signatures, i.history
         FROM intents i JOIN quotes q ON q.nonce = i.id WHERE i.id = $1 AND q.project_id = $2`,
        [id, ctx.state.projectId],
      );
      if (!row) throw new ApiError(404, `No such intent with nonce ${id}`);
      const claims = row.origin_chain_ids.map((chainId) => {
        const claim = row.claims[chainId];
        return claim
          ? { chainId: Number(chainId), status: 'CLAIMED', claimTimestamp: claim.timestamp, claimTransactionHash: claim.transactionHash, depositId: id }
          : { chainId: Number(chainId), status: row.status === 'EXPIRED' ? 'EXPIRED' : 'PENDING', depositId: id };
      });
      return {
        status: 200,
        body: {
          status: row.status,
          destinationChainId: Number(row.destination_chain_id),
          userAddress: getAddress(row.account),
          claims,
          ...(row.fill ? { fillTimestamp: row.fill.timestamp, fillTransactionHash: row.fill.transactionHash } : {}),
          ...(query.full ? { intentOp: row.operation, signatures: row.signatures, history: row.history } : {}),
        },
      };
    },
  }),
  defineRoute<{ chainId: number; tokens: Record<string, string>; settlementLayers?: string[] }, unknown, unknown>({
    method: 'post',
    path: '/intents/split',
    summary: 'Split requested amounts into parts that one relayer each can fill',
    tags: ['intents'],
    auth: 'apiKey',
    body: splitBody,
    responses: { 200: { description: '{intents: [{token: amount}]}' }, 422: { description: 'INSUFFICIENT_LIQUIDITY' } },
    async handler(_ctx, { body }, s) {
      if (!s.registry.chain(body.chainId)) throw badRequest(`Unsupported chain ${body.chainId}`);
      const rows: { settlement_layer: string; token: string; amount: string }[] = await s.db.query(
        'SELECT settlement_layer, token, amount FROM relayer_liquidity WHERE chain_id = $1',
        [body.chainId],
      );
      const requested = Object.fromEntries(Object.entries(body.tokens).map(([t, a]) => [t, BigInt(a)]));
      const result = splitIntents(requested, rows.map((r) => ({ settlementLayer: r.settlement_layer, token: r.token, amount: BigInt(r.amount) })), body.settlementLayers);
      const str = (m: Record<string, bigint>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.toString()]));
      if (!result.ok) {
        throw new ApiError(422, 'Insufficient liquidity', {
          body: { error: 'INSUFFICIENT_LIQUIDITY', availableIntents: result.availableIntents.map(str), unfillable: str(result.unfillable) },
        });
      }
      return { status: 200, body: { intents: result.intents.map(str) } };
    },
  }),
];
