import { randomUUID } from 'node:crypto';
import type { ChainRpc } from '../chains/rpc';
import type { Db, Tx } from '../db/types';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/registry';
import type { IntentConfig } from './config';
import { availableSources } from '../ledger/ledger';
import type { NonceBlock } from '../ledger/nonces';
import { hasSponsorship, type Sponsored } from '../projects/sponsorship-store';
import { DEFAULT_FEES } from './market-defaults';
import { loadMarket } from './market';
import type { Sponsorship } from './pricing';
import {
  applyAccessList,
  buildIntentOp,
  fillDeadlineOf,
  IntentCost,
  IntentInput,
  intentCost,
  resolveRequests,
} from './quote';
import { DomainError } from '../errors';
import { planAlternatives, rankPlans, rescale, type Plan } from './plan-finder';
import { signIntentOp } from './server-signature';
import { recordQuotes } from './quote-store';
import type { IntentOp } from './types';

export interface QuoteDeps {
  registry: ChainRegistry;
  config: { intents: IntentConfig };
  lockTag: string;
  orchestrator: PrivateKeyAccount;
  nonces: NonceBlock;
  /** live gas prices where a chain has RPC_URL_<chainId> */
  rpc: ChainRpc;
}

async function load(manager: Tx, input: IntentInput, deps: QuoteDeps) {
  const requests = resolveRequests(input, deps.registry);
  // Balances and market data are read concurrently (on separate pooled connections when `manager` is the pool's).
  const reading = availableSources(manager, input.account.address, deps.lockTag, deps.registry).then((s) =>
    applyAccessList(s, input.accountAccessList),
  );
  const market = await loadMarket(
    manager,
    deps.registry,
    reading.then((s) => [input.destinationChainId, ...new Set(s.map((x) => x.chainId))]),
    deps.rpc,
  );
  return { requests, sources: await reading, market };
}

/**
 * The fees `sponsorSettings` asks the sponsor to cover. Any of them needs the project's sponsorship entitlement; false
 * or absent settings (what the published clients send by default) need nothing.
 */
async function sponsorship(manager: Tx, input: IntentInput, projectId: string | undefined): Promise<Sponsorship> {
  const asked = input.options.sponsorSettings ?? {};
  const sponsor = {
    gas: !!asked.gasSponsored,
    bridge: !!asked.bridgeFeesSponsored,
    protocol: !!asked.protocolFeesSponsored,
  };
  if (
    (sponsor.gas || sponsor.bridge || sponsor.protocol || !!asked.swapFeesSponsored) &&
    !(await hasSponsorship(manager, projectId))
  ) {
    throw new DomainError(
      'FORBIDDEN',
      'sponsorSettings: this project is not entitled to fee sponsorship (send no sponsorSettings, or all false)',
    );
  }
  return sponsor;
}

async function plan(manager: Tx, input: IntentInput, deps: QuoteDeps, projectId: string | undefined, alternatives = 1) {
  fillDeadlineOf(input, Math.floor(Date.now() / 1000), deps.config.intents); // a bad deadline is refused before any read
  const sponsor = await sponsorship(manager, input, projectId);
  const { requests, sources, market } = await load(manager, input, deps);
  const plans = planAlternatives(
    {
      destinationChainId: input.destinationChainId,
      requests,
      sources,
      allowedLayers: input.options.settlementLayers,
      destinationGasUnits: BigInt(input.destinationGasUnits ?? 0),
      sponsor,
    },
    deps.registry,
    DEFAULT_FEES,
    market,
    alternatives,
  );
  return { plans: alternatives > 1 ? rankPlans(plans, market) : plans, market };
}

/**
 * When no plan covers a request: per requested token, the amount asked and what the account can spend of that
 * asset on any chain (in the requested token's decimals), with its USD price. Nothing stored.
 */
export async function quoteShortfall(db: Db, input: IntentInput, deps: QuoteDeps) {
  const { requests, sources, market } = await load(db, input, deps);
  return requests.map((r) => ({
    token: r.token,
    requested: r.amount ?? 0n,
    available: sources
      .filter((s) => s.token.symbol === r.token.symbol)
      .reduce((sum, s) => sum + rescale(s.available, s.token.decimals, r.token.decimals, false), 0n),
    priceUsd: market.priceUsd(r.token.symbol) ?? 0,
  }));
}

/** POST /intents/cost: the price of the cheapest plan, nothing stored. */
export async function quoteCost(db: Db, input: IntentInput, deps: QuoteDeps, projectId?: string) {
  return intentCost((await plan(db, input, deps, projectId)).plans[0], input.destinationChainId);
}

/** A stored, signed quote: what each version presents of it. */
export interface IssuedQuote {
  intentOp: IntentOp;
  intentCost: IntentCost;
  tokenRequirements?: Record<string, Record<string, unknown>>;
  plan: Plan;
  expiresAt: number;
}

/**
 * Plans over the balances as read now (nothing is reserved until a submit), then for each plan takes a nonce,
 * builds and signs the operation, and stores it with its time-to-live and its nonce record.
 */
async function issue(
  db: Db,
  input: IntentInput,
  projectId: string | undefined,
  deps: QuoteDeps,
  alternatives: number,
): Promise<IssuedQuote[]> {
  const { plans, market } = await plan(db, input, deps, projectId, alternatives);
  const now = Math.floor(Date.now() / 1000);
  const expiresAt = now + deps.config.intents.quoteTtlSeconds;
  const group = plans.length > 1 ? randomUUID() : null;
  const issued = await Promise.all(
    plans.map(async (p) => {
      const nonce = await deps.nonces.next(input.account.address);
      const built = buildIntentOp({
        input,
        plan: p,
        nonce,
        now,
        lockTag: deps.lockTag,
        config: deps.config.intents,
        registry: deps.registry,
        market: market.snapshot(),
      });
      const intentOp: IntentOp = { ...built.op, serverSignature: await signIntentOp(built.op, deps.orchestrator) };
      return { nonce, intentOp, built, plan: p };
    }),
  );
  await recordQuotes(
    db,
    issued.map(({ nonce, intentOp, built, plan: p }) => ({
      nonce,
      operation: intentOp,
      cost: built.cost,
      reservations: built.reservations,
      sponsored: sponsoredBy(p, input.destinationChainId),
    })),
    {
      projectId,
      account: input.account.address,
      expiresAt,
      planGroup: group,
    },
  );
  return issued.map(({ intentOp, built, plan: p }) => ({
    intentOp,
    intentCost: built.cost,
    ...(built.tokenRequirements ? { tokenRequirements: built.tokenRequirements } : {}),
    plan: p,
    expiresAt,
  }));
}

/** What the sponsor covers of a plan's fees, recorded with its quote; null when the user pays them all. */
function sponsoredBy(p: Plan, destinationChainId: number): Sponsored | null {
  const usd = p.cost.sponsoredUsd.relayer + p.cost.sponsoredUsd.protocol;
  const tokens = p.received
    .filter((r) => r.sponsored > 0n)
    .map((r) => ({
      chainId: destinationChainId,
      tokenAddress: r.token.address,
      symbol: r.token.symbol,
      decimals: r.token.decimals,
      amount: r.sponsored.toString(),
    }));
  return usd > 0 || tokens.length ? { usd: usd.toFixed(6), tokens } : null;
}

/** POST /intents/route (alps): the cheapest plan as one signed operation. */
export async function createQuote(db: Db, input: IntentInput, projectId: string | undefined, deps: QuoteDeps) {
  return (await issue(db, input, projectId, deps, 1))[0];
}

/** POST /quotes (blanc): every distinct plan the ledger and the settlement layers allow, best first. */
export function createQuotes(db: Db, input: IntentInput, projectId: string | undefined, deps: QuoteDeps) {
  return issue(db, input, projectId, deps, MAX_PLANS);
}

/** Each plan is a stored quote with its own nonce; four covers locks and wallet funds over two layers each. */
const MAX_PLANS = 4;
