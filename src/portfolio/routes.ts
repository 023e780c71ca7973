import type { DataSource } from 'typeorm';
import { address, patterns, safeUint, Schema } from '../http/schema';
import { defineRoute, RouteDef } from '../http/route';
import { BalanceRow, buildPortfolio, presentAlps, presentLegacy } from './portfolio';
import { normalizePortfolioQuery } from './query';

interface Query { chainIds?: number[]; tokens?: string[]; filterEmpty: boolean }
interface Params { userAddress: string }

const params: Schema = { type: 'object', required: ['userAddress'], properties: { userAddress: address } };
const query: Schema = {
  type: 'object',
  properties: {
    chainIds: { type: 'array', items: safeUint(1), maxItems: 200, description: 'comma list, or repeated chainIds[]' },
    tokens: { type: 'array', items: { type: 'string', pattern: `^[1-9][0-9]*:${patterns.address.slice(1, -1)}$` }, maxItems: 500, description: 'comma list of chainId:tokenAddress, or repeated tokens[]' },
    filterEmpty: { type: 'boolean', default: false },
  },
};

const amount: Schema = { type: 'string', pattern: patterns.uint256 };
const split: Schema = { type: 'object', required: ['locked', 'unlocked'], properties: { locked: amount, unlocked: amount } };
const entry = (balance: Schema): Schema => ({
  type: 'object',
  required: ['tokenName', 'tokenDecimals', 'balance', 'tokenChainBalance'],
  properties: {
    tokenName: { type: 'string' },
    tokenDecimals: { type: 'integer' },
    balance,
    tokenChainBalance: {
      type: 'array',
      items: { type: 'object', required: ['chainId', 'tokenAddress', 'balance'], properties: { chainId: { type: 'integer' }, tokenAddress: address, balance } },
    },
  },
});
const response = (balance: Schema): Schema => ({ type: 'object', required: ['portfolio'], properties: { portfolio: { type: 'array', items: entry(balance) } } });

async function readBalances(db: DataSource, account: string): Promise<BalanceRow[]> {
  const rows: { chain_id: string; token: string; unlocked: string; locked: string }[] = await db.query(
    `SELECT chain_id, token, sum(unlocked) AS unlocked, sum(locked) AS locked FROM (
       SELECT chain_id, token, amount AS unlocked, 0 AS locked FROM wallet_balances WHERE account = $1
       UNION ALL
       SELECT chain_id, token, 0, amount FROM lock_balances WHERE account = $1
     ) b GROUP BY chain_id, token`,
    [account.toLowerCase()],
  );
  return rows.map((r) => ({ chainId: Number(r.chain_id), token: r.token, unlocked: BigInt(r.unlocked), locked: BigInt(r.locked) }));
}

function portfolioRoute(host: 'current' | 'legacy'): RouteDef {
  const present = host === 'current' ? presentAlps : presentLegacy;
  return defineRoute<unknown, Query, Params>({
    method: 'get',
    path: '/accounts/{userAddress}/portfolio',
    summary: host === 'current' ? 'Portfolio with locked and unlocked balances' : 'Portfolio with one balance per token (legacy shape)',
    tags: ['portfolio'],
    auth: 'apiKey',
    params,
    query,
    normalizeQuery: normalizePortfolioQuery,
    responses: { 200: { description: 'balances per token, across chains', schema: response(host === 'current' ? split : amount) } },
    async handler(_ctx, input, { db, registry }) {
      const tokens = input.query.tokens?.map((t) => {
        const [chainId, token] = t.split(':');
        return { chainId: Number(chainId), token };
      });
      const rows = await readBalances(db, input.params.userAddress);
      const portfolio = buildPortfolio(rows, registry, { chainIds: input.query.chainIds, tokens, filterEmpty: input.query.filterEmpty });
      return { status: 200, body: { portfolio: present(portfolio) } };
    },
  });
}

export const currentPortfolioRoute = portfolioRoute('current');
export const legacyPortfolioRoute = portfolioRoute('legacy');
