import { getAddress } from 'viem';
import { crashPoint } from '../faults';
import { ApiError, badRequest } from '../http/errors';
import { defineRoute } from '../http/route';
import type { Services } from '../http/services';
import type { IntentInput } from './quote';
import { createQuote, quoteCost, QuoteOutcome } from './quote-service';
import { intentInput, splitBody, statusParams, statusQuery, submitBody, submitResponse } from './schemas';
import { splitIntents } from './split';
import { acceptIntent, SubmitRefused } from './store';
import { presentClaims } from './claims';
import type { IntentOp, SignedIntentOp } from './types';
import type { IntentStatus } from '../../workflows/intent-state';
import { verifySubmission } from './verify';

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
      const signed = body.signedIntentOp;
      const id = BigInt(signed.nonce).toString();
      const [quote]: { operation: IntentOp; expired: boolean; submitted: boolean }[] = await s.db.query(
        // Quotes and intents belong to the project whose key asked for them; other projects see nothing.
        'SELECT q.operation, q.expires_at < now() AS expired, i.id IS NOT NULL AS submitted FROM quotes q LEFT JOIN intents i ON i.id = q.nonce WHERE q.nonce = $1 AND q.project_id = $2',
        [id, ctx.state.projectId],
      );
      // A resubmission of an accepted intent is answered even after the quote's time-to-live.
      if (!quote || (quote.expired && !quote.submitted)) throw new ApiError(404, 'Quote expired or not found; request a new route');
      const accountType = String((quote.operation.signedMetadata.account as { accountType?: string })?.accountType ?? 'ERC7579');
      await verifySubmission(signed, quote.operation, accountType, { orchestratorAddress: s.orchestratorAddress, compactContract: s.config.intents.compactSigningContract, env: process.env });
      if (signed.options?.dryRun) return { status: 200, body: { result: { id, status: 'VERIFIED' } } };

      const submission = {
        originSignatures: signed.originSignatures,
        destinationSignature: signed.destinationSignature,
        ...(signed.targetExecutionSignature ? { targetExecutionSignature: signed.targetExecutionSignature } : {}),
        ...(signed.signedAuthorizations ? { signedAuthorizations: signed.signedAuthorizations } : {}),
      };
      let accepted;
      try {
        accepted = await acceptIntent(s.db, id, submission, ctx.state.projectId, s.config.intents.fillGraceSeconds);
      } catch (e) {
        if (e instanceof SubmitRefused) throw e.quoteGone ? new ApiError(404, `${e.message}; request a new route`) : badRequest(e.message);
        throw e;
      }
      crashPoint('submit-after-commit');
      if (accepted.start) {
        s.metrics.workflowStarts.inc({ workflow: 'intentLifecycle' });
        // The intent is recorded with its start queued: if Temporal is unreachable now, the outbox sweeper starts it.
        await s.outbox.start(accepted.start).catch((err) => s.logger.warn({ err, id }, 'lifecycle start deferred to the outbox sweeper'));
      }
      return { status: 201, body: { result: { id, status: accepted.status } } };
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
        status: IntentStatus; account: string; destination_chain_id: string; origin_chain_ids: string[]; fill: { transactionHash: string; timestamp: number } | null;
        claims: Record<string, { transactionHash: string; timestamp: number }>; operation: unknown; signatures: unknown; history: unknown;
      }[] = await s.db.query(
        `SELECT i.status, i.account, i.destination_chain_id, i.origin_chain_ids, i.fill, i.claims, i.operation, i.signatures, i.history
         FROM intents i JOIN quotes q ON q.nonce = i.id WHERE i.id = $1 AND q.project_id = $2`,
        [id, ctx.state.projectId],
      );
      if (!row) throw new ApiError(404, `No such intent with nonce ${id}`);
      const claims = presentClaims(id, row.status, row.origin_chain_ids, row.claims);
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
