import type { FillFacts } from '../../workflows/relayer/contract';
import { claimSteps, decideFill, feesBySymbol, feesInWei } from '../../workflows/relayer/relay-state';

const facts = (over: Partial<FillFacts> = {}): FillFacts => ({
  unsupported: null,
  now: 1000,
  fillDeadline: 2000,
  inventory: [{ token: '0xusdc', held: '5000000', needed: '5000000' }],
  feesWei: '100',
  gasWei: '100',
  filled: null,
  ...over,
});

describe("the relayer's decisions", () => {
  test('fills when it holds every token, the deadline is ahead and the fees cover the gas exactly or more', () => {
    expect(decideFill(facts())).toEqual({ fill: true });
    expect(decideFill(facts({ feesWei: '101' }))).toEqual({ fill: true });
  });

  test('skips, with its reason: short inventory, fees below the gas, no price, the deadline passed', () => {
    expect(decideFill(facts({ inventory: [{ token: '0xusdc', held: '4999999', needed: '5000000' }] }))).toEqual({
      fill: false,
      reason: 'no inventory: 0xusdc holds 4999999, needs 5000000',
    });
    expect(decideFill(facts({ feesWei: '99' }))).toEqual({
      fill: false,
      reason: 'the fees (99 wei) do not cover the gas (100 wei)',
    });
    expect(decideFill(facts({ feesWei: '-5' }))).toMatchObject({ fill: false });
    expect(decideFill(facts({ feesWei: null }))).toMatchObject({ fill: false, reason: expect.stringMatching(/price/) });
    expect(decideFill(facts({ now: 2000 }))).toEqual({ fill: false, reason: 'the fill deadline 2000 has passed' });
    expect(decideFill(facts({ unsupported: 'no settlement contract on chain 10' }))).toEqual({
      fill: false,
      reason: 'no settlement contract on chain 10',
    });
  });

  test('a fill of its own already mined is taken up whatever else holds; another relayer’s is left to it', () => {
    const ours = facts({ filled: { by: 'us', tx: '0xf1' }, now: 5000, inventory: [], feesWei: null });
    expect(decideFill(ours)).toEqual({ fill: true, resume: '0xf1' });
    expect(decideFill(facts({ filled: { by: 'other', tx: '0xf2' } }))).toEqual({
      fill: false,
      reason: 'filled by another relayer (0xf2)',
    });
  });

  test('claims every element the service attests the fill for, but a lock the allocator no longer authorizes', () => {
    expect(
      claimSteps({
        elements: [
          { chainId: 1, fundingMethod: 'COMPACT', allocatorData: '0xaa', attested: true },
          { chainId: 2, fundingMethod: 'COMPACT', allocatorData: null, attested: true },
          { chainId: 3, fundingMethod: 'PERMIT2', allocatorData: null, attested: true },
          { chainId: 4, fundingMethod: 'COMPACT', allocatorData: '0xbb', attested: false },
          { chainId: 5, fundingMethod: 'PERMIT2', allocatorData: null, attested: false },
        ],
      }),
    ).toEqual(['claim', 'settled', 'claim', 'unattested', 'unattested']);
  });

  test('fees: claims less fills per symbol, valued in wei at each price (wei per unit ×10^18); null if unpriced', () => {
    const fees = feesBySymbol(
      [
        { symbol: 'USDC', amount: '3000000' },
        { symbol: 'USDC', amount: '2100000' },
      ],
      [{ symbol: 'USDC', amount: '5000000' }],
    );
    expect(fees).toEqual({ USDC: '100000' });
    // 0.0003 ETH per USDC: 3e14 wei per 1e6 units, 3e8 wei per unit.
    expect(feesInWei(fees, { USDC: (300_000_000n * 10n ** 18n).toString() })).toBe('30000000000000');
    expect(feesInWei(fees, {})).toBeNull();
    expect(feesBySymbol([{ symbol: 'USDC', amount: '1' }], [{ symbol: 'USDT', amount: '1' }])).toEqual({
      USDC: '1',
      USDT: '-1',
    });
  });
});
