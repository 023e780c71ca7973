import { getUserOperationHash, entryPoint07Address } from 'viem/account-abstraction';
import { canonicalBundle, expectedSigned, orderBundleHash, type OrderBundle } from '../../src/bundles/order-bundle';
import { presentShortfall } from '../../src/bundles/presenter';
import { v0 } from '../support/legacy-client';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const { parseCompactResponse }: any = require('../../node_modules/rhinestone-sdk-v0/dist/src/orchestrator/utils.js');
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

const bundle: OrderBundle = {
  sponsor: '0x1111111111111111111111111111111111111111',
  nonce: '123456789012345678901234567890',
  expires: '1800000000',
  segments: [8453, 10].map((chainId, i) => ({
    arbiter: '0x000000000006e2569CaF8Ff021810790e0A0D740',
    chainId: String(chainId),
    idsAndAmounts: [
      [(2n ** 255n + BigInt(i)).toString(), '1500000'],
      ['42', '7'],
    ],
    witness: {
      recipient: '0x2222222222222222222222222222222222222222',
      tokenOut: [['1000', '1000000']],
      depositId: '123456789012345678901234567890',
      targetChain: '42161',
      fillDeadline: 1_799_999_000,
      execs: i
        ? []
        : [
            { to: '0x000000000000000000000000000000000000bEEF', value: '5', data: '0x1234' },
            { to: '0x000000000000000000000000000000000000dEaD', value: '0', data: '0x' },
          ],
      userOpHash: `0x${'ab'.repeat(32)}`,
      maxFeeBps: 25,
    },
  })),
};

test("the bundle digest is the 0.5.4 client's getOrderBundleHash, for several segments, pairs and executions", () => {
  expect(orderBundleHash(bundle)).toBe(v0.getOrderBundleHash(parseCompactResponse(bundle)));
  const single = { ...bundle, segments: [bundle.segments[1]] };
  expect(orderBundleHash(single)).toBe(v0.getOrderBundleHash(parseCompactResponse(single)));
});

test('the canonical form ignores the encoding (numbers, address case) and nothing else', () => {
  const echoed = JSON.parse(
    JSON.stringify({
      ...bundle,
      sponsor: bundle.sponsor.toUpperCase().replace('0X', '0x'),
      expires: Number(bundle.expires),
    }),
  );
  expect(canonicalBundle(echoed)).toBe(canonicalBundle(bundle));
  const changed = {
    ...bundle,
    segments: [
      { ...bundle.segments[0], witness: { ...bundle.segments[0].witness, maxFeeBps: 26 } },
      bundle.segments[1],
    ],
  };
  expect(canonicalBundle(changed)).not.toBe(canonicalBundle(bundle));
});

test('on the session path the first segment carries the v0.7 userOp hash on the target chain', () => {
  const userOp = {
    sender: '0x1111111111111111111111111111111111111111',
    nonce: '1',
    callData: '0x',
    callGasLimit: '100000',
    verificationGasLimit: '200000',
    preVerificationGas: '50000',
    maxFeePerGas: '1000',
    maxPriorityFeePerGas: '10',
    signature: '0x',
  } as const;
  const expected = expectedSigned(bundle, userOp);
  const hash = getUserOperationHash({
    userOperation: {
      ...userOp,
      nonce: 1n,
      callGasLimit: 100000n,
      verificationGasLimit: 200000n,
      preVerificationGas: 50000n,
      maxFeePerGas: 1000n,
      maxPriorityFeePerGas: 10n,
    } as never,
    chainId: 42161,
    entryPointAddress: entryPoint07Address,
    entryPointVersion: '0.7',
  });
  expect(expected.segments[0].witness.userOpHash).toBe(hash);
  expect(expected.segments[1]).toBe(bundle.segments[1]);
  expect(expectedSigned(bundle)).toBe(bundle);
});

test('the shortfall total is whole USD, rounded up', () => {
  const usdc = { symbol: 'USDC', decimals: 6, address: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' } as never;
  expect(
    presentShortfall([{ token: usdc, requested: 10_500_000n, available: 10_000_000n, priceUsd: 1 }])
      .totalTokenShortfallInUSD,
  ).toBe('1');
  expect(presentShortfall([{ token: usdc, requested: 5n, available: 10n, priceUsd: 1 }])).toMatchObject({
    totalTokenShortfallInUSD: '0',
    tokenShortfall: [{ amountSpent: '5' }],
  });
});
