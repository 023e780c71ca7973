import { address, caip2, type Infer, patterns, safeUint, Schema } from '../http/schema';
import { defineRoute, RouteDef } from '../http/route';
import { buildPortfolio, presentAlps, presentBlanc, presentLegacy, TokenPortfolio } from './portfolio';
import { accountBalances } from './store';
import { normalizePortfolioQuery, normalizeRepeatedQuery } from './query';
import { fromCaip2 } from '../chains/registry';
import { ALPS, BLANC, type ApiVersion } from '../http/versions';

const params = { type: 'object', required: ['userAddress'], properties: { userAddress: address } } as const;
const query = {
  type: 'object',
  properties: {
    chainIds: { type: 'array', items: safeUint(1), maxItems: 200, description: 'comma list, or repeated chainIds[]' },
    tokens: {
      type: 'array',
      items: { type: 'string', pattern: `^[1-9][0-9]*:${patterns.address.slice(1, -1)}$` },
      maxItems: 500,
      description: 'comma list of chainId:tokenAddress, or repeated tokens[]',
    },
    filterEmpty: { type: 'boolean', default: false },
  },
} as const;
/** 2026-04.blanc: CAIP-2 chain ids, and tokens as `eip155:<chainId>:<address>`. */
const blancQuery = {
  type: 'object',
  properties: {
    chainIds: { type: 'array', items: caip2, maxItems: 200 },
    tokens: {
      type: 'array',
      items: { type: 'string', pattern: `${patterns.caip2.slice(0, -1)}:${patterns.address.slice(1, -1)}$` },
      maxItems: 500,
    },
    filterEmpty: { type: 'boolean', default: false },
  },
} as const;
type Query = Infer<typeof query | typeof blancQuery>;

const amount = { type: 'string', pattern: patterns.uint256 } as const;
const split = {
  type: 'object',
  required: ['locked', 'unlocked'],
  properties: { locked: amount, unlocked: amount },
} as const;
const entry = (balance: Schema): Schema => ({
  type: 'object',
  required: ['tokenName', 'tokenDecimals', 'balance', 'tokenChainBalance'],
  properties: {
    tokenName: { type: 'string' },
    tokenDecimals: { type: 'integer' },
    balance,
    tokenChainBalance: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chainId', 'tokenAddress', 'balance'],
        properties: { chainId: { type: 'integer' }, tokenAddress: address, balance },
      },
    },
  },
});
const response = (item: Schema): Schema => ({
  type: 'object',
  required: ['portfolio'],
  properties: { portfolio: { type: 'array', items: item } },
});

interface Variant {
  summary: string;
  versions?: readonly ApiVersion[];
  query: typeof query | typeof blancQuery;
  normalizeQuery: RouteDef['normalizeQuery'];
  /** the query's chain and token filters as the core reads them */
  filter(q: Query): { chainIds?: number[]; tokens?: { chainId: number; token: string }[] };
  balance: Schema;
  entry?: Schema;
  present(p: TokenPortfolio[]): unknown[];
}

function portfolioRoute(v: Variant): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/accounts/{userAddress}/portfolio',
    summary: v.summary,
    tags: ['portfolio'],
    auth: 'apiKey',
    ...(v.versions ? { versions: v.versions } : {}),
    params,
    query: v.query,
    normalizeQuery: v.normalizeQuery,
    responses: {
      200: { description: 'balances per token, across chains', schema: response(v.entry ?? entry(v.balance)) },
    },
    async handler(_ctx, input, { db, registry }) {
      const rows = await accountBalances(db, input.params.userAddress);
      const portfolio = buildPortfolio(rows, registry, {
        ...v.filter(input.query),
        filterEmpty: input.query.filterEmpty,
      });
      return { status: 200, body: { portfolio: v.present(portfolio) } };
    },
  });
}

/** `chainId:tokenAddress` (alps, legacy) or `eip155:<chainId>:tokenAddress` (blanc): the chain is before the last colon. */
const tokenFilter = (toChain: (chain: string) => number) => (q: Query) => ({
  chainIds: q.chainIds?.map((c) => (typeof c === 'number' ? c : toChain(c))),
  tokens: q.tokens?.map((t) => ({
    chainId: toChain(t.slice(0, t.lastIndexOf(':'))),
    token: t.slice(t.lastIndexOf(':') + 1),
  })),
});

const blancEntry = {
  type: 'object',
  required: ['symbol', 'decimals', 'balance', 'chains'],
  properties: {
    symbol: { type: 'string' },
    decimals: { type: 'integer' },
    balance: split,
    chains: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chainId', 'address', 'decimals', 'balance'],
        properties: { chainId: caip2, address, decimals: { type: 'integer' }, balance: split },
      },
    },
  },
} as const;

export const currentPortfolioRoutes = [
  portfolioRoute({
    summary: 'Portfolio with locked and unlocked balances',
    versions: [ALPS],
    query,
    normalizeQuery: normalizePortfolioQuery,
    filter: tokenFilter(Number),
    balance: split,
    present: presentAlps,
  }),
  portfolioRoute({
    summary: 'Portfolio with locked and unlocked balances (repeated chainIds and tokens=eip155:<id>:<address> filters)',
    versions: [BLANC],
    query: blancQuery,
    normalizeQuery: normalizeRepeatedQuery,
    filter: tokenFilter((c) => fromCaip2(c)!),
    balance: split,
    entry: blancEntry,
    present: presentBlanc,
  }),
];
export const legacyPortfolioRoute = portfolioRoute({
  summary: 'Portfolio with one balance per token (legacy shape)',
  query,
  normalizeQuery: normalizePortfolioQuery,
  filter: tokenFilter(Number),
  balance: amount,
  present: presentLegacy,
});
