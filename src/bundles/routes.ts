import { getAddress, parseErc6492Signature, serializeErc6492Signature, slice, type Hex } from 'viem';
import { crashPoint } from '../faults';
import { DomainError } from '../errors';
import { project } from '../http/project';
import { routeGroup } from '../http/route';
import type { Infer } from '../http/schema';
import { claimStates, presentClaims } from '../intents/claims';
import type { IntentInput } from '../intents/quote';
import { createQuote, quoteCost, quoteShortfall } from '../intents/quote-service';
import { quoteDeps } from '../intents/handler-support';
import { findQuote } from '../intents/quote-store';
import { invalidSignature } from '../intents/verify';
import { verifyOnChain } from '../signatures/smart-account';
import type { ChainRpc } from '../chains/rpc';
import { bundleWorkflowType } from '../../workflows/contracts/bundle-lifecycle';
import {
  canonicalBundle,
  expectedSigned,
  orderBundleHash,
  orderBundleOf,
  type SignedOrderBundle,
} from './order-bundle';
import { LEGACY_STATUS, pendingBundleEvent, presentCost, presentShortfall } from './presenter';
import { bundleEventBody, bundleParams, costBody, eventsQuery, pathBody, submitBody, userParams } from './schemas';
import { acceptBundles, bundleEvents, BundleRefused, readBundle, type VerifiedBundle } from '../intents/bundle-store';
import { leftToSweeper } from '../outbox/left-to-sweeper';
import { recordPreconfirmation } from './preconfirmation';

type CostBody = Infer<typeof costBody>;
type PathBody = Infer<typeof pathBody>;

/**
 * A legacy request in the domain's own input: every 0.5.x account is a smart account, its target gas is the
 * userOp's gas when it sends one, and the path's recipient is its target account.
 */
function intentInputOf(userAddress: string, body: CostBody & Partial<PathBody>): IntentInput {
  const gas =
    body.userOp &&
    [body.userOp.callGasLimit, body.userOp.verificationGasLimit, body.userOp.preVerificationGas].reduce<bigint>(
      (sum, g) => sum + BigInt(g ?? 0),
      0n,
    );
  return {
    destinationChainId: body.targetChainId,
    tokenRequests: body.tokenTransfers,
    account: { address: userAddress, accountType: 'ERC7579', setupOps: [] },
    ...(body.targetAccount ? { recipient: { address: body.targetAccount, accountType: 'ERC7579' } } : {}),
    destinationExecutions: body.targetExecutions ?? [],
    destinationGasUnits: body.targetGasUnits ?? gas?.toString(),
    accountAccessList: body.accountAccessList,
    options: {},
  };
}

const notFound = (id: string) => new DomainError('NOT_FOUND', `Bundle ${id} not found`, { context: { bundleId: id } });

/**
 * The sponsor's signatures over the bundle exactly as the client hashed it: each origin signature on its segment's
 * chain and the target signature on the target chain, each distinct (chain, signature) once. They are the
 * owner validator's address followed by the owners' ECDSA signatures, checked by the account itself (ERC-1271),
 * or through the factory call in `initCode` (ERC-6492) while it is not deployed.
 */
async function verifyBundle(signed: SignedOrderBundle, initCode: Hex | undefined, rpc: ChainRpc): Promise<void> {
  if (signed.originSignatures.length !== signed.segments.length) throw invalidSignature();
  const hash = orderBundleHash(signed);
  const checks = new Map<string, { chainId: number; signature: Hex }>();
  const add = (chainId: number, signature: Hex) =>
    checks.set(`${chainId}:${signature.toLowerCase()}`, { chainId, signature });
  signed.segments.forEach((s, i) => add(Number(s.chainId), signed.originSignatures[i]));
  add(Number(signed.segments[0].witness.targetChain), signed.targetSignature);
  for (const { chainId, signature } of checks.values()) {
    const wrapped =
      initCode && !isErc6492(signature)
        ? serializeErc6492Signature({
            address: getAddress(slice(initCode, 0, 20)),
            data: slice(initCode, 20),
            signature,
          })
        : signature;
    if (!(await verifyOnChain(rpc, chainId, { address: signed.sponsor, hash, signature: wrapped })))
      throw invalidSignature();
  }
}

/** Already wrapped for ERC-6492; a malformed wrapping counts as wrapped, for the account to reject. */
function isErc6492(signature: Hex): boolean {
  try {
    return !!parseErc6492Signature(signature).address;
  } catch {
    return true;
  }
}

const bundleRoute = routeGroup({ tags: ['bundles'], auth: 'apiKey' });
/** Under /accounts/{userAddress}/bundles: quotes for the account. */
const accountBundleRoute = routeGroup({ tags: ['bundles'], auth: 'apiKey', params: userParams });

export const bundleRoutes = [
  accountBundleRoute('post', '/accounts/{userAddress}/bundles/cost', {
    summary: 'The cost of a bundle, or what the account lacks for it (hasFulfilledAll false); nothing is stored',
    body: costBody,
    responses: {
      200: {
        description:
          'fulfilled: {hasFulfilledAll, tokensSpent, tokensReceived}; shortfall: {hasFulfilledAll, tokenShortfall, totalTokenShortfallInUSD}',
      },
    },
    async handler(_ctx, { params, body }, s) {
      const input = intentInputOf(params.userAddress, body);
      try {
        return { status: 200, body: presentCost(await quoteCost(s.db, input, quoteDeps(s))) };
      } catch (e) {
        // The 0.5.x client reads a shortfall as an answer, and every other refusal as a 400.
        if (!(e instanceof DomainError)) throw e;
        if (e.code !== 'INSUFFICIENT_BALANCE') throw new DomainError('VALIDATION_ERROR', e.message);
      }
      return { status: 200, body: presentShortfall(await quoteShortfall(s.db, input, quoteDeps(s))) };
    },
  }),
  accountBundleRoute('post', '/accounts/{userAddress}/bundles/path', {
    summary: 'Quote a bundle: the order bundle to sign and its cost (stored for INTENT_QUOTE_TTL_SECONDS)',
    body: pathBody,
    responses: { 200: { description: '{orderBundles: [{orderBundle, injectedExecutions, intentCost}]}' } },
    async handler(ctx, { params, body }, s) {
      const quote = await createQuote(s.db, intentInputOf(params.userAddress, body), project(ctx), quoteDeps(s));
      // Nothing is injected before the caller's executions: the fill delivers the tokens to the target account.
      return {
        status: 200,
        body: {
          orderBundles: [
            {
              orderBundle: orderBundleOf(quote.intentOp),
              injectedExecutions: [],
              intentCost: presentCost(quote.intentCost),
            },
          ],
        },
      };
    },
  }),
  bundleRoute('post', '/bundles', {
    summary: 'Submit signed order bundles (idempotent: the same bundle returns the same id)',
    body: submitBody,
    responses: { 201: { description: '{bundleResults: [{bundleId, status}]}' } },
    async handler(ctx, { body }, s) {
      const verified: VerifiedBundle[] = [];
      for (const { signedOrderBundle: signed, initCode, userOp } of body.bundles) {
        const id = BigInt(signed.nonce).toString();
        const quote = await findQuote(s.db, id, project(ctx), 'bundle');
        // A resubmission of an accepted bundle is answered even after its path's time-to-live.
        if (!quote || (quote.expired && !quote.submitted))
          throw new DomainError('NOT_FOUND', `Bundle ${id} expired or not found; request a new path`);
        // Ours and unchanged: what we served, as the client alters it before signing, field for field.
        if (canonicalBundle(signed) !== canonicalBundle(expectedSigned(orderBundleOf(quote.operation), userOp)))
          throw invalidSignature();
        await verifyBundle(signed, initCode, s.rpc);
        verified.push({ id, signed, pendingEvent: pendingBundleEvent(id, signed, Math.floor(Date.now() / 1000)) });
      }
      let accepted;
      try {
        accepted = await acceptBundles(s.db, project(ctx), verified, {
          fillGraceSeconds: s.config.intents.fillGraceSeconds,
          proofDays: s.config.allocator.proofDays,
        });
      } catch (e) {
        if (e instanceof BundleRefused)
          throw e.pathGone
            ? new DomainError('NOT_FOUND', `${e.message}; request a new path`)
            : new DomainError('VALIDATION_ERROR', e.message);
        throw e;
      }
      crashPoint('submit-after-commit');
      for (const { id, start } of accepted) {
        if (!start) continue;
        s.metrics.workflowStarts.inc({ workflow: bundleWorkflowType });
        // Not awaited: the answer goes first, and startSoon never rejects (a failed start is left to the sweeper).
        void s.outbox.startSoon(start, leftToSweeper(s.logger, 'lifecycle start', { id }));
      }
      return {
        status: 201,
        body: { bundleResults: accepted.map(({ id, status }) => ({ bundleId: id, status: LEGACY_STATUS[status] })) },
      };
    },
  }),
  bundleRoute('get', '/bundles/events', {
    summary: "The project's accepted bundles as relayers consume them, oldest first, paged by offset",
    query: eventsQuery,
    responses: { 200: { description: '{events, nextOffset}' } },
    async handler(ctx, { query }, s) {
      const events = await bundleEvents(s.db, project(ctx), query.offset, query.count);
      return { status: 200, body: { events, nextOffset: query.offset + events.length } };
    },
  }),
  bundleRoute('get', '/bundles/{bundleId}', {
    summary: 'Status of a submitted bundle, its fill and its claims',
    params: bundleParams,
    responses: {
      200: { description: '{status, fillTimestamp?, fillTransactionHash?, claims}' },
      404: { description: 'no such bundle' },
    },
    async handler(ctx, { params }, s) {
      const id = BigInt(params.bundleId).toString();
      const row = await readBundle(s.db, id, project(ctx));
      if (!row) throw notFound(id);
      return {
        status: 200,
        body: {
          status: LEGACY_STATUS[row.status],
          ...(row.fill ? { fillTimestamp: row.fill.timestamp, fillTransactionHash: row.fill.transactionHash } : {}),
          claims: presentClaims(id, claimStates(row.status, row.originChainIds, row.claims)),
        },
      };
    },
  }),
  bundleRoute('post', '/bundles/{bundleId}/events', {
    summary:
      "A relayer's fill preconfirmation: the bundle's lifecycle gets it as the indexer's preconfirmation (once per chain)",
    params: bundleParams,
    body: bundleEventBody,
    responses: {
      201: { description: '{status: "Accepted"}' },
      400: { description: 'a chain this deployment does not serve' },
      404: { description: 'no such bundle' },
    },
    async handler(ctx, { params, body }, s) {
      const id = BigInt(params.bundleId).toString();
      if (!s.registry.chain(body.chainId))
        throw new DomainError('UNSUPPORTED_CHAIN', `Unsupported chain ${body.chainId}`);
      const signals = await recordPreconfirmation(
        s.db,
        project(ctx),
        id,
        body.chainId,
        s.config.intents.fillGraceSeconds,
      );
      if (!signals) throw notFound(id);
      // Recorded: what this process does not deliver, the outbox sweeper does.
      await s.outbox.deliver(signals).catch(leftToSweeper(s.logger, 'preconfirmation', { id }));
      return { status: 201, body: { status: 'Accepted' } };
    },
  }),
];
