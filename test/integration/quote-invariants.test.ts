import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ARB_USDC, BASE_USDC, getCompactTypedData } from '../support/fixtures';
import { originTypedData } from '../../src/intents/typed-data';
import { Api, call, ingest, startApi } from '../support/harness';

let api: Api;
let seq = 0;
const id = () => `quote-inv-${Date.now()}-${seq++}`;
const BLANC = { 'x-api-version': '2026-04.blanc' };
const DUPLICATE = 'USDC is requested more than once: request each asset once, with the total amount';

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** An account with `locked` USDC (6 decimals) in a resource lock on Base. */
async function fundedAccount(locked: string) {
  const account = privateKeyToAccount(generatePrivateKey());
  await ingest(api, [{ id: id(), type: 'balance', chainId: 8453, account: account.address, token: BASE_USDC, locked, blockNumber: '1' }]);
  return account;
}

const alpsInput = (address: string, tokenRequests: unknown[], options: Record<string, unknown> = {}) => ({
  account: { address, accountType: 'EOA', setupOps: [] },
  destinationChainId: 42161,
  destinationExecutions: [],
  tokenRequests,
  options: { topupCompact: false, signatureMode: 1, ...options },
});

async function signed(account: ReturnType<typeof privateKeyToAccount>, intentOp: any) { // eslint-disable-line @typescript-eslint/no-explicit-any
  const signature = await account.signTypedData(getCompactTypedData(intentOp));
  return { ...intentOp, originSignatures: intentOp.elements.map(() => signature), destinationSignature: signature };
}

const reservedFor = async (account: string) =>
  BigInt((await api.db.query('SELECT coalesce(sum(amount), 0) AS s FROM reservations WHERE account = $1 AND released_at IS NULL', [account.toLowerCase()]))[0].s);

describe('21.1 duplicate assets double the promise', () => {
  // The same asset twice, by address and by symbol: 200 USDC promised out of 150 USDC held.
  const twice = [{ tokenAddress: ARB_USDC, amount: '100000000' }, { tokenAddress: 'USDC', amount: '100000000' }];

  test('21.1 duplicate assets: alps /intents/route refuses them (nothing to sign, nothing reserved)', async () => {
    const account = await fundedAccount('150000000');
    const route = await call(api, 'POST', '/intents/route', { body: alpsInput(account.address, twice) });
    if (route.status === 200) {
      // Today's defect, spelled out: a signed promise of more than the intent takes, accepted at submit.
      const out = route.json.intentOp.elements[0].mandate.tokenOut.reduce((s: bigint, [, a]: [string, string]) => s + BigInt(a), 0n);
      const submit = await call(api, 'POST', '/intent-operations', { body: { signedIntentOp: await signed(account, route.json.intentOp) } });
      throw new Error(`quoted tokenOut ${out}, submit ${submit.status}, reserved ${await reservedFor(account.address)}`);
    }
    expect(route.status).toBe(400);
    expect(route.json).toMatchObject({ message: DUPLICATE, errors: [{ message: DUPLICATE }] });
    expect(await reservedFor(account.address)).toBe(0n);
    const cost = await call(api, 'POST', '/intents/cost', { body: alpsInput(account.address, twice) });
    expect(cost.status).toBe(400);
    expect(cost.json.message).toBe(DUPLICATE);
  });

  test('21.1 duplicate assets: blanc /quotes refuses them with VALIDATION_ERROR', async () => {
    const account = await fundedAccount('150000000');
    const res = await call(api, 'POST', '/quotes', { headers: BLANC, body: { account: { address: account.address }, destinationChainId: 'eip155:42161', tokenRequests: twice } });
    expect({ status: res.status, code: res.json.code, message: res.json.message }).toEqual({ status: 400, code: 'VALIDATION_ERROR', message: DUPLICATE });
  });

  test('21.1 duplicate assets: legacy bundles cost and path refuse them', async () => {
    const account = await fundedAccount('150000000');
    const body = { targetChainId: 42161, tokenTransfers: twice, targetAccount: account.address, targetExecutions: [] };
    for (const route of ['cost', 'path']) {
      const res = await call(api, 'POST', `/legacy/accounts/${account.address}/bundles/${route}`, { body });
      expect({ route, status: res.status, message: res.json?.errors?.[0]?.message }).toEqual({ route, status: 400, message: DUPLICATE });
    }
  });

  test('21.1 duplicate assets: distinct assets in one request are still quoted', async () => {
    const account = await fundedAccount('150000000');
    const route = await call(api, 'POST', '/intents/route', { body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '100000000' }]) });
    expect(route.status).toBe(200);
    expect(route.json.intentOp.elements[0].mandate.tokenOut).toEqual([[expect.any(String), '100000000']]);
  });
});

describe('21.9 deadlines and prices are bounded', () => {
  const now = () => Math.floor(Date.now() / 1000);

  test('21.9 customDeadline in the past is refused (400), not silently replaced', async () => {
    const account = await fundedAccount('5000000');
    for (const customDeadline of [now() - 60, 0]) {
      const res = await call(api, 'POST', '/intents/route', { body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '1000000' }], { customDeadline }) });
      expect({ status: res.status, message: res.json.message }).toEqual({ status: 400, message: expect.stringMatching(/^customDeadline \d+ is not in the future/) });
    }
    const blanc = await call(api, 'POST', '/quotes', { headers: BLANC, body: { account: { address: account.address }, destinationChainId: 'eip155:42161', tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }], options: { customDeadline: now() - 60 } } });
    expect({ status: blanc.status, code: blanc.json.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });

  test('21.9 an absurdly far customDeadline on wallet (Permit2) funds is refused at quote, never a 500 at submit', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await ingest(api, [{ id: id(), type: 'balance', chainId: 8453, account: account.address, token: BASE_USDC, unlocked: '5000000', blockNumber: '1' }]);
    const route = await call(api, 'POST', '/intents/route', { body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '1000000' }], { customDeadline: Number.MAX_SAFE_INTEGER }) });
    if (route.status === 200) {
      const op = route.json.intentOp;
      const signatures = await Promise.all(originTypedData(op, api.services.config.intents.compactSigningContract).map((t) => account.signTypedData(t as never)));
      const submit = await call(api, 'POST', '/intent-operations', { body: { signedIntentOp: { ...op, originSignatures: signatures, destinationSignature: signatures[signatures.length - 1] } } });
      throw new Error(`quoted with Permit2 deadline ${op.expires}; submit answered ${submit.status} ${submit.text.slice(0, 120)}`);
    }
    expect(route.status).toBe(400);
    expect(route.json.message).toMatch(/^customDeadline must be at most \d+ \(2592000 seconds ahead\)$/);
  });

  // Last: on unfixed code it leaves an unusable ETH price behind.
  test('21.9 a price event with a huge usd is refused at ingestion; quotes keep working', async () => {
    const res = await ingest(api, [{ id: id(), type: 'price', symbol: 'ETH', usd: 1e300 }]);
    const account = await fundedAccount('5000000');
    const route = await call(api, 'POST', '/intents/route', { body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '1000000' }]) });
    expect({ ingest: res.status, route: route.status }).toEqual({ ingest: 400, route: 200 });
  });
});
