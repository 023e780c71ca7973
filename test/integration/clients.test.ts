import path from 'node:path';
import { ARB_USDC, BASE_USDC } from '../support/fixtures';
import { Api, ingest, startApi } from '../support/harness';

// The published clients, unchanged: 1.15.0 (current host) and 0.5.4 (legacy host, installed under an npm alias).
// Loaded by path: 1.15.0 does not export these subpaths, and its typings pull in browser-only types.
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const v1: any = require(path.join(sdkDir, 'orchestrator'));
const { createAuthProvider }: any = require(path.join(sdkDir, 'auth/provider'));
const v0: any = require(
  path.resolve(__dirname, '../../node_modules/rhinestone-sdk-v0/dist/src/orchestrator/client.js'),
);
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

const ACCOUNT = '0x2222222222222222222222222222222222222222';

let api: Api;
beforeAll(async () => {
  api = await startApi();
  await ingest(api, [
    {
      id: 'client-1',
      type: 'balance',
      chainId: 8453,
      account: ACCOUNT,
      token: BASE_USDC,
      unlocked: '1500000',
      locked: '2500000',
      blockNumber: '9',
    },
    {
      id: 'client-2',
      type: 'balance',
      chainId: 42161,
      account: ACCOUNT,
      token: ARB_USDC,
      unlocked: '7',
      blockNumber: '9',
    },
  ]);
});
afterAll(() => api.close());

test('@rhinestone/sdk 1.15.0 Orchestrator.getPortfolio reads locked/unlocked balances', async () => {
  const orchestrator = v1.getOrchestrator(createAuthProvider({ apiKey: api.apiKey }), api.url);
  const portfolio = await orchestrator.getPortfolio(ACCOUNT, { chainIds: [8453, 42161, 1] });
  expect(portfolio).toEqual([
    {
      symbol: 'USDC',
      decimals: 6,
      balances: { locked: 2500000n, unlocked: 1500007n },
      chains: [
        { chain: 8453, address: BASE_USDC, locked: 2500000n, unlocked: 1500000n },
        { chain: 42161, address: ARB_USDC, locked: 0n, unlocked: 7n },
      ],
    },
  ]);
  const filtered = await orchestrator.getPortfolio(ACCOUNT, { tokens: { 42161: [ARB_USDC] } });
  expect(filtered[0].chains).toEqual([{ chain: 42161, address: ARB_USDC, locked: 0n, unlocked: 7n }]);
});

test('@rhinestone/sdk 1.15.0 maps our 401 to its auth errors', async () => {
  const orchestrator = v1.getOrchestrator(createAuthProvider({ apiKey: 'sk_wrong' }), api.url);
  await expect(orchestrator.getPortfolio(ACCOUNT)).rejects.toBeInstanceOf(v1.InvalidApiKeyError);
});

test('@rhinestone/sdk 0.5.4 Orchestrator.getPortfolio reads the legacy single balance', async () => {
  const orchestrator = new v0.Orchestrator(`${api.url}/legacy`, api.apiKey);
  const portfolio = await orchestrator.getPortfolio(ACCOUNT, { chainIds: [8453], tokens: { 8453: [BASE_USDC] } });
  expect(portfolio).toEqual([
    {
      tokenName: 'USDC',
      tokenDecimals: 6,
      balance: 4000000n,
      tokenChainBalance: [{ chainId: 8453, tokenAddress: BASE_USDC, balance: 4000000n }],
    },
  ]);
});
