import { toCaip2, type ChainRegistry } from '../chains/registry';

export interface BalanceRow {
  chainId: number;
  token: string;
  unlocked: bigint;
  locked: bigint;
}

export interface ChainBalance {
  chainId: number;
  tokenAddress: string;
  locked: bigint;
  unlocked: bigint;
}
export interface TokenPortfolio {
  symbol: string;
  decimals: number;
  locked: bigint;
  unlocked: bigint;
  chains: ChainBalance[];
}

export interface PortfolioFilter {
  chainIds?: number[];
  tokens?: { chainId: number; token: string }[];
  filterEmpty: boolean;
}

/**
 * Groups per-chain balances by token symbol and decimals (USDC has 18 decimals on BSC, so it stays a separate entry:
 * summing amounts of different scales would be wrong). Tokens missing from the registry are skipped.
 */
export function buildPortfolio(rows: BalanceRow[], registry: ChainRegistry, filter: PortfolioFilter): TokenPortfolio[] {
  const chainSet = filter.chainIds?.length ? new Set(filter.chainIds) : undefined;
  const tokenSet = filter.tokens?.length
    ? new Set(filter.tokens.map((t) => `${t.chainId}:${t.token.toLowerCase()}`))
    : undefined;
  const groups = new Map<string, TokenPortfolio>();
  for (const row of rows) {
    if (chainSet && !chainSet.has(row.chainId)) continue;
    if (tokenSet && !tokenSet.has(`${row.chainId}:${row.token.toLowerCase()}`)) continue;
    if (filter.filterEmpty && row.locked === 0n && row.unlocked === 0n) continue;
    const info = registry.token(row.chainId, row.token);
    if (!info) continue;
    const key = `${info.symbol}:${info.decimals}`;
    const group = groups.get(key) ?? {
      symbol: info.symbol,
      decimals: info.decimals,
      locked: 0n,
      unlocked: 0n,
      chains: [],
    };
    group.locked += row.locked;
    group.unlocked += row.unlocked;
    group.chains.push({ chainId: row.chainId, tokenAddress: info.address, locked: row.locked, unlocked: row.unlocked });
    groups.set(key, group);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, chains: g.chains.sort((a, b) => a.chainId - b.chainId) }))
    .sort((a, b) => a.symbol.localeCompare(b.symbol) || a.decimals - b.decimals);
}

/** Current-generation (alps) shape: locked and unlocked amounts at both levels, as decimal strings. */
export function presentAlps(p: TokenPortfolio[]) {
  return p.map((t) => ({
    tokenName: t.symbol,
    tokenDecimals: t.decimals,
    balance: { locked: t.locked.toString(), unlocked: t.unlocked.toString() },
    tokenChainBalance: t.chains.map((c) => ({
      chainId: c.chainId,
      tokenAddress: c.tokenAddress,
      tokenDecimals: t.decimals,
      balance: { locked: c.locked.toString(), unlocked: c.unlocked.toString() },
    })),
  }));
}

/** Legacy bundle-host shape: one balance string (locked + unlocked) at both levels. */
export function presentLegacy(p: TokenPortfolio[]) {
  return p.map((t) => ({
    tokenName: t.symbol,
    tokenDecimals: t.decimals,
    balance: (t.locked + t.unlocked).toString(),
    tokenChainBalance: t.chains.map((c) => ({
      chainId: c.chainId,
      tokenAddress: c.tokenAddress,
      balance: (c.locked + c.unlocked).toString(),
    })),
  }));
}

/** 2026-04.blanc shape: `symbol`, `chains`, per-chain `address`/`decimals`, CAIP-2 chain ids. */
export function presentBlanc(p: TokenPortfolio[]) {
  return p.map((t) => ({
    symbol: t.symbol,
    decimals: t.decimals,
    balance: { locked: t.locked.toString(), unlocked: t.unlocked.toString() },
    chains: t.chains.map((c) => ({
      chainId: toCaip2(c.chainId),
      address: c.tokenAddress,
      decimals: t.decimals,
      balance: { locked: c.locked.toString(), unlocked: c.unlocked.toString() },
    })),
  }));
}
