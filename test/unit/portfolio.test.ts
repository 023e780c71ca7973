import { loadChainRegistry } from '../../src/chains/registry';
import { buildPortfolio, presentAlps, presentLegacy } from '../../src/portfolio/portfolio';
import { normalizePortfolioQuery } from '../../src/portfolio/query';

const registry = loadChainRegistry();
const BASE_USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const ETH_USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const rows = [
  { chainId: 8453, token: BASE_USDC, unlocked: 5n, locked: 2n },
  { chainId: 1, token: ETH_USDC, unlocked: 1n, locked: 0n },
  { chainId: 1, token: '0x0000000000000000000000000000000000000000', unlocked: 0n, locked: 0n },
  { chainId: 1, token: '0x000000000000000000000000000000000000dead', unlocked: 9n, locked: 0n },
];

test('groups by symbol, sums bigints exactly, orders chains, skips unknown tokens', () => {
  const p = buildPortfolio(rows, registry, { filterEmpty: false });
  expect(p.map((t) => t.symbol)).toEqual(['ETH', 'USDC']);
  expect(p[1]).toMatchObject({ locked: 2n, unlocked: 6n });
  expect(p[1].chains.map((c) => c.chainId)).toEqual([1, 8453]);
});

test('filterEmpty drops zero balances; chain and token filters combine', () => {
  expect(buildPortfolio(rows, registry, { filterEmpty: true }).map((t) => t.symbol)).toEqual(['USDC']);
  const onlyBase = buildPortfolio(rows, registry, { filterEmpty: false, chainIds: [8453] });
  expect(onlyBase[0].chains).toHaveLength(1);
  const token = buildPortfolio(rows, registry, {
    filterEmpty: false,
    tokens: [{ chainId: 1, token: ETH_USDC.toUpperCase().replace('0X', '0x') }],
  });
  expect(token.map((t) => t.chains.map((c) => c.chainId))).toEqual([[1]]);
});

test('presenters: alps split and legacy single string, amounts as decimal strings', () => {
  const p = buildPortfolio([{ chainId: 8453, token: BASE_USDC, unlocked: 2n ** 255n, locked: 2n ** 255n }], registry, {
    filterEmpty: false,
  });
  expect(presentAlps(p)[0].balance).toEqual({ locked: (2n ** 255n).toString(), unlocked: (2n ** 255n).toString() });
  expect(presentLegacy(p)[0].balance).toBe((2n ** 256n).toString());
});

test('query normalisation accepts both client styles', () => {
  expect(normalizePortfolioQuery({ chainIds: '1,10', tokens: '1:0xA,10:0xB' })).toEqual({
    chainIds: ['1', '10'],
    tokens: ['1:0xA', '10:0xB'],
  });
  expect(normalizePortfolioQuery({ 'chainIds[]': ['1', '10'], tokens: '' })).toEqual({ chainIds: ['1', '10'] });
  expect(normalizePortfolioQuery({ 'tokens[]': '1:0xA', filterEmpty: 'true' })).toEqual({
    tokens: ['1:0xA'],
    filterEmpty: 'true',
  });
});
