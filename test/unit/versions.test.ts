import { ApiError } from '../../src/http/errors';
import { quoteInput, signData } from '../../src/intents/blanc-presenter';
import { envelope, errorCode } from '../../src/http/envelope';
import { ARB_USDC } from '../support/fixtures';

test('envelope: a named code wins, else the status decides, else INTERNAL', () => {
  expect(errorCode(new ApiError(400, 'x', { code: 'INVALID_SIGNATURE' }))).toBe('INVALID_SIGNATURE');
  expect(errorCode(new ApiError(404, 'x'))).toBe('NOT_FOUND');
  expect(errorCode(new ApiError(429, 'x'))).toBe('TOO_MANY_REQUESTS');
  expect(errorCode(new ApiError(418, 'x'))).toBe('VALIDATION_ERROR');
  expect(errorCode(new ApiError(500, 'x', { code: 'DEPOSIT_TOKEN_UNSUPPORTED' }))).toBe('INTERNAL'); // not a blanc code
  expect(
    envelope(
      new ApiError(422, 'Insufficient liquidity', { code: 'INSUFFICIENT_LIQUIDITY', details: { unfillable: {} } }),
      't1',
    ),
  ).toEqual({
    code: 'INSUFFICIENT_LIQUIDITY',
    message: 'Insufficient liquidity',
    traceId: 't1',
    details: { unfillable: {} },
  });
});

test('blanc quote requests become the core input: CAIP-2 to numbers, renames, lock-only fields refused', () => {
  const input = quoteInput({
    destinationChainId: 'eip155:42161',
    tokenRequests: [{ tokenAddress: ARB_USDC, amount: '5' }],
    account: {
      address: '0x1111111111111111111111111111111111111111',
      accountType: 'ERC7579',
      setupOps: [],
      mockSignatures: { 'eip155:1': '0x' },
    },
    destinationExecutions: [],
    destinationGasLimit: '70000',
    accountAccessList: {
      chainIds: ['eip155:8453'],
      chainTokens: { 'eip155:10': ['USDC'] },
      exclude: { chainIds: ['eip155:1'] },
    },
    options: { sponsorSettings: { gas: true, bridgeFees: false, swapFees: true }, customDeadline: 1_900_000_000 },
  });
  expect(input).toEqual({
    destinationChainId: 42161,
    tokenRequests: [{ tokenAddress: ARB_USDC, amount: '5' }],
    account: { address: '0x1111111111111111111111111111111111111111', accountType: 'ERC7579', setupOps: [] },
    destinationExecutions: [],
    destinationGasUnits: '70000',
    accountAccessList: { chainIds: [8453], chainTokens: { '10': ['USDC'] }, exclude: { chainIds: [1] } },
    options: {
      sponsorSettings: { gasSponsored: true, bridgeFeesSponsored: false, swapFeesSponsored: true },
      customDeadline: 1_900_000_000,
    },
  });
  const base = { destinationChainId: 'eip155:1', tokenRequests: [], destinationExecutions: [], options: {} };
  expect(() =>
    quoteInput({ ...base, account: { address: '0x', accountType: 'EOA', setupOps: [], emissaryConfig: {} } as never }),
  ).toThrow('account.emissaryConfig has no equivalent');
  expect(() =>
    quoteInput({
      ...base,
      account: { address: '0x', accountType: 'EOA', setupOps: [] },
      options: { topupCompact: false } as never,
    }),
  ).toThrow('options.topupCompact');
});

test('signData is JSON: uint values as decimal strings, numeric EIP-712 domain chain id', () => {
  const op = {
    sponsor: '0x1111111111111111111111111111111111111111',
    nonce: '7',
    expires: '1900000000',
    elements: [
      {
        arbiter: '0x2222222222222222222222222222222222222222',
        chainId: '8453',
        idsAndAmounts: [['452312848583266388373324160190187140051835877600158453279131187530910662656', '10']] as [
          string,
          string,
        ][],
        spendTokens: [],
        beforeFill: false,
        mandate: {
          recipient: '0x1111111111111111111111111111111111111111',
          tokenOut: [],
          destinationChainId: '42161',
          fillDeadline: '1899999000',
          minGas: '0',
          preClaimOps: { vt: ('0x' + '0'.repeat(64)) as `0x${string}`, ops: [] },
          destinationOps: { vt: ('0x' + '0'.repeat(64)) as `0x${string}`, ops: [] },
          qualifier: {
            settlementContext: { settlementLayer: 'ACROSS', fundingMethod: 'COMPACT' as const, using7579: false },
            encodedVal: '0x' as `0x${string}`,
          },
        },
      },
    ],
  };
  const data = signData(op, '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f');
  expect(JSON.parse(JSON.stringify(data))).toEqual(data);
  expect(data.destination).toEqual(data.origin[0]);
  expect(data.origin[0].domain.chainId).toBe(8453);
  expect(data.origin[0].message.nonce).toBe('7');
});
