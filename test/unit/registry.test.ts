import { ChainRegistry, fromCaip2, loadChainRegistry, toCaip2 } from '../../src/chains/registry';

const registry = loadChainRegistry();

test('CAIP-2 mapping both ways, rejecting other namespaces and junk', () => {
  expect(toCaip2(8453)).toBe('eip155:8453');
  expect(fromCaip2('eip155:42161')).toBe(42161);
  expect(fromCaip2('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')).toBeUndefined();
  expect(fromCaip2('eip155:0')).toBeUndefined();
  expect(fromCaip2('eip155:12x')).toBeUndefined();
});

test('every chain the published clients list is supported, with settlement layers', () => {
  const ids = [
    1, 10, 8453, 42161, 137, 1868, 146, 9745, 100, 56, 999, 143, 130, 747474, 4663, 43114, 57073, 196, 11155111,
    11155420, 84532, 421614, 9746, 80002,
  ];
  for (const id of ids) expect(registry.chain(id)).toBeDefined();
  expect(registry.chain(8453)!.settlementLayers).toEqual(
    expect.arrayContaining(['ACROSS', 'SAME_CHAIN', 'INTENT_EXECUTOR']),
  );
  expect(registry.chain(8453)!.settlementLayers).not.toContain('OFT');
  expect(registry.chain(9746)!.settlementLayers).toEqual(['ECO', 'SAME_CHAIN', 'INTENT_EXECUTOR']);
});

test('token look-ups are case-insensitive and return checksummed addresses', () => {
  const usdc = registry.token(1, '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
  expect(usdc).toMatchObject({ symbol: 'USDC', decimals: 6, address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' });
  expect(registry.tokenBySymbol(56, 'usdc')!.decimals).toBe(18);
  expect(registry.token(8453, '0xdac17f958d2ee523a2206206994597c13d831ec7')).toBeUndefined();
});

test('an override file is validated', () => {
  expect(
    () =>
      new ChainRegistry({
        version: 'x',
        chains: [
          {
            id: 1,
            name: 'a',
            testnet: false,
            nativeCurrency: { symbol: 'ETH', decimals: 18 },
            settlementLayers: ['WARP'],
            tokens: [],
          },
        ],
      }),
  ).toThrow(/unknown settlement layer WARP/);
  expect(
    () =>
      new ChainRegistry({
        version: 'x',
        chains: [
          {
            id: 1,
            name: 'a',
            testnet: false,
            nativeCurrency: { symbol: 'ETH', decimals: 18 },
            settlementLayers: [],
            tokens: [{ symbol: 'X', address: '0x12', decimals: 6 }],
          },
        ],
      }),
  ).toThrow(/bad token address/);
});
