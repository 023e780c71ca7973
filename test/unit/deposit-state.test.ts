import {
  afterBridge,
  bridgeErrorCode,
  depositReports,
  isBridgeOutcome,
  whileWaiting,
  wireStatus,
} from '../../workflows/deposit-state';

describe('deposit state', () => {
  test("review item 5: a batch tells each intent's deposit once, where the intent ended", () => {
    const reports = depositReports([
      { id: '1', kind: 'intent', status: 'COMPLETED' },
      { id: '2', kind: 'intent', status: 'FAILED' },
      { id: '2', kind: 'intent', status: 'COMPLETED' },
      { id: '3', kind: 'intent', status: 'FILLED' },
      { id: '4', kind: 'intent', status: 'PRECONFIRMED' },
      { id: '6', kind: 'intent', status: 'CLAIMED' },
      { id: '5', kind: 'bundle', status: 'COMPLETED' },
    ]);
    // Intent 2 failed, then completed in the same batch: its deposit hears COMPLETED only, never FAILED after it.
    // CLAIMED is reached only at a fill (its claim came first): the deposit hears of it as of a fill.
    expect(Object.fromEntries(reports)).toEqual({ COMPLETED: ['1', '2'], FILLED: ['3'], CLAIMED: ['6'] });
  });

  test('a final attempt whose funds left (filled, or claimed though recorded failed) completes; else retries while retries remain, then refunds', () => {
    const none = { filled: false, claimed: false };
    expect(afterBridge({ filled: true, claimed: true }, 3, 2)).toBe('complete');
    expect(afterBridge({ filled: true, claimed: false }, 3, 2)).toBe('complete');
    expect(afterBridge({ filled: false, claimed: true }, 1, 2)).toBe('complete');
    expect(afterBridge(none, 1, 2)).toBe('retry');
    expect(afterBridge(none, 2, 2)).toBe('retry');
    expect(afterBridge(none, 3, 2)).toBe('refund');
    expect(afterBridge(none, 1, 0)).toBe('refund');
    expect(bridgeErrorCode('EXPIRED')).toBe('BRIDGE-3');
    expect(bridgeErrorCode('FAILED')).toBe('BRIDGE-4');
    expect(['COMPLETED', 'FAILED', 'EXPIRED', 'FILLED', 'PENDING'].map(isBridgeOutcome)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  test('waiting: no route or the funds wait over ends the deposit (rejected first, refunded after an attempt), the delay is reported once', () => {
    const w = { noRoute: false, fundsWaitOver: false, delayDue: false, delayReported: false, attempt: 1 };
    expect(whileWaiting(w)).toBe('retry');
    expect(whileWaiting({ ...w, delayDue: true })).toBe('report-delay');
    expect(whileWaiting({ ...w, delayDue: true, delayReported: true })).toBe('retry');
    expect(whileWaiting({ ...w, delayDue: true, attempt: 2 })).toBe('retry');
    expect(whileWaiting({ ...w, noRoute: true })).toBe('reject');
    expect(whileWaiting({ ...w, fundsWaitOver: true, attempt: 2 })).toBe('refund');
  });

  test('wire status of each stage', () => {
    expect(
      (['received', 'bridging', 'completed', 'rejected', 'refunding', 'refunded'] as const).map(wireStatus),
    ).toEqual(['processing', 'processing', 'completed', 'failed', 'failed', 'refunded']);
  });
});

describe('deposit checks', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { verdict } = require('../../src/deposits/checks') as typeof import('../../src/deposits/checks');
  const usdc = { symbol: 'USDC', decimals: 6, address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' };
  const facts = {
    token: usdc,
    amount: 5_000_000n,
    priceUsd: 1,
    minUsd: 1,
    managed: true,
    proven: true,
    hasSession: false,
    requireCompliance: false,
    complianceApproved: false,
    sameChain: false,
    targetToken: '0xaf88d065e77c8cc2239327c5edb3a432268e5831',
    targetSymbol: 'USDC',
    recipientIsAccount: true,
  };

  test('each refusal has its code, in order', () => {
    // An unproven registration moves nothing, whatever else holds: its deposits are only recorded.
    expect(verdict({ ...facts, proven: false, token: undefined })).toMatchObject({ kind: 'reject', code: 'ACCOUNT-2' });
    expect(verdict({ ...facts, token: undefined })).toMatchObject({ kind: 'reject', code: 'TOKEN-1' });
    expect(verdict({ ...facts, amount: 999_999n })).toEqual({
      kind: 'reject',
      code: 'BALANCE-4',
      message: 'Deposit is below the minimum of 1 USD',
      limits: { minAmountUsd: '1' },
    });
    expect(verdict({ ...facts, amount: 1n, priceUsd: undefined })).toEqual({ kind: 'bridge' });
    expect(verdict({ ...facts, managed: false })).toMatchObject({ code: 'SESSION-1' });
    expect(verdict({ ...facts, managed: false, hasSession: true })).toEqual({ kind: 'bridge' });
    expect(verdict({ ...facts, requireCompliance: true })).toMatchObject({ code: 'COMPLIANCE-1' });
    expect(verdict({ ...facts, requireCompliance: true, complianceApproved: true })).toEqual({ kind: 'bridge' });
    expect(verdict({ ...facts, targetSymbol: 'WETH' })).toEqual({
      kind: 'reject',
      code: 'BRIDGE-6',
      message: 'No route from USDC to WETH: deposits are moved, not swapped',
    });
  });

  test('same chain and token to its own account needs no intent; another recipient does', () => {
    expect(verdict({ ...facts, sameChain: true, targetToken: usdc.address.toUpperCase().replace('0X', '0x') })).toEqual(
      { kind: 'direct' },
    );
    expect(verdict({ ...facts, sameChain: true, targetToken: usdc.address, recipientIsAccount: false })).toEqual({
      kind: 'bridge',
    });
  });
});

describe('deposit intent sizing', () => {
  const { targetAmount, totalSpent } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('../../src/deposits/sizing') as typeof import('../../src/deposits/sizing');
  test('the deposit in target units minus the fee of moving everything available', () => {
    expect(targetAmount(5_000_000n, 6, 6, 52_000n)).toBe(4_948_000n);
    expect(targetAmount(5_000_000n, 6, 18, 10n ** 12n)).toBe(5n * 10n ** 18n - 10n ** 12n);
    expect(targetAmount(1_234_567n, 18, 6, 0n)).toBe(0n);
    expect(
      totalSpent({
        tokensSpent: { 8453: { a: { locked: '2', unlocked: '3' } }, 10: { b: { locked: '0', unlocked: '5' } } },
      }),
    ).toBe(10n);
  });
});
