import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { projectRoot } from '../../src/dev/processes';
import { createProject } from '../../src/projects/api-keys';
import { ARB_USDC, eventId, getCompactTypedData, walletSnapshot } from '../support/fixtures';
import { originTypedData } from '../../src/intents/typed-data';
import { Api, call, fundedAccount, ingest, startApi } from '../support/harness';
import { reservedFor } from '../support/reservations';

let api: Api;
const BLANC = { 'x-api-version': '2026-04.blanc' };
const run = promisify(execFile);
const DUPLICATE = 'USDC is requested more than once: request each asset once, with the total amount';

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const alpsInput = (address: string, tokenRequests: unknown[], options: Record<string, unknown> = {}) => ({
  account: { address, accountType: 'EOA', setupOps: [] },
  destinationChainId: 42161,
  destinationExecutions: [],
  tokenRequests,
  options: { topupCompact: false, signatureMode: 1, ...options },
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function signed(account: ReturnType<typeof privateKeyToAccount>, intentOp: any) {
  const signature = await account.signTypedData(getCompactTypedData(intentOp));
  return { ...intentOp, originSignatures: intentOp.elements.map(() => signature), destinationSignature: signature };
}

describe('21.1 duplicate assets double the promise', () => {
  // The same asset twice, by address and by symbol: 200 USDC promised out of 150 USDC held.
  const twice = [
    { tokenAddress: ARB_USDC, amount: '100000000' },
    { tokenAddress: 'USDC', amount: '100000000' },
  ];

  test('21.1 duplicate assets: alps /intents/route refuses them (nothing to sign, nothing reserved)', async () => {
    const account = await fundedAccount(api, '150000000');
    const route = await call(api, 'POST', '/intents/route', { body: alpsInput(account.address, twice) });
    if (route.status === 200) {
      // Today's defect, spelled out: a signed promise of more than the intent takes, accepted at submit.
      const out = route.json.intentOp.elements[0].mandate.tokenOut.reduce(
        (s: bigint, [, a]: [string, string]) => s + BigInt(a),
        0n,
      );
      const submit = await call(api, 'POST', '/intent-operations', {
        body: { signedIntentOp: await signed(account, route.json.intentOp) },
      });
      throw new Error(
        `quoted tokenOut ${out}, submit ${submit.status}, reserved ${await reservedFor(api, account.address)}`,
      );
    }
    expect(route.status).toBe(400);
    expect(route.json).toMatchObject({ message: DUPLICATE, errors: [{ message: DUPLICATE }] });
    expect(await reservedFor(api, account.address)).toBe(0n);
    const cost = await call(api, 'POST', '/intents/cost', { body: alpsInput(account.address, twice) });
    expect(cost.status).toBe(400);
    expect(cost.json.message).toBe(DUPLICATE);
  });

  test('21.1 duplicate assets: blanc /quotes refuses them with VALIDATION_ERROR', async () => {
    const account = await fundedAccount(api, '150000000');
    const res = await call(api, 'POST', '/quotes', {
      headers: BLANC,
      body: { account: { address: account.address }, destinationChainId: 'eip155:42161', tokenRequests: twice },
    });
    expect({ status: res.status, code: res.json.code, message: res.json.message }).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: DUPLICATE,
    });
  });

  test('21.1 duplicate assets: legacy bundles cost and path refuse them', async () => {
    const account = await fundedAccount(api, '150000000');
    const body = { targetChainId: 42161, tokenTransfers: twice, targetAccount: account.address, targetExecutions: [] };
    for (const route of ['cost', 'path']) {
      const res = await call(api, 'POST', `/legacy/accounts/${account.address}/bundles/${route}`, { body });
      expect({ route, status: res.status, message: res.json?.errors?.[0]?.message }).toEqual({
        route,
        status: 400,
        message: DUPLICATE,
      });
    }
  });

  test('21.1 duplicate assets: distinct assets in one request are still quoted', async () => {
    const account = await fundedAccount(api, '150000000');
    const route = await call(api, 'POST', '/intents/route', {
      body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '100000000' }]),
    });
    expect(route.status).toBe(200);
    expect(route.json.intentOp.elements[0].mandate.tokenOut).toEqual([[expect.any(String), '100000000']]);
  });
});

describe('21.9 deadlines and prices are bounded', () => {
  const now = () => Math.floor(Date.now() / 1000);

  test('21.9 customDeadline in the past is refused (400), not silently replaced', async () => {
    const account = await fundedAccount(api, '5000000');
    for (const customDeadline of [now() - 60, 0]) {
      const res = await call(api, 'POST', '/intents/route', {
        body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '1000000' }], { customDeadline }),
      });
      expect({ status: res.status, message: res.json.message }).toEqual({
        status: 400,
        message: expect.stringMatching(/^customDeadline \d+ is not in the future/),
      });
    }
    const blanc = await call(api, 'POST', '/quotes', {
      headers: BLANC,
      body: {
        account: { address: account.address },
        destinationChainId: 'eip155:42161',
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
        options: { customDeadline: now() - 60 },
      },
    });
    expect({ status: blanc.status, code: blanc.json.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });

  test('21.9 an absurdly far customDeadline on wallet (Permit2) funds is refused at quote, never a 500 at submit', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await ingest(api, [walletSnapshot(account.address, '5000000')]);
    const route = await call(api, 'POST', '/intents/route', {
      body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '1000000' }], {
        customDeadline: Number.MAX_SAFE_INTEGER,
      }),
    });
    if (route.status === 200) {
      const op = route.json.intentOp;
      const signatures = await Promise.all(
        originTypedData(op, api.services.config.intents.compactSigningContract).map((t) =>
          account.signTypedData(t as never),
        ),
      );
      const submit = await call(api, 'POST', '/intent-operations', {
        body: {
          signedIntentOp: {
            ...op,
            originSignatures: signatures,
            destinationSignature: signatures[signatures.length - 1],
          },
        },
      });
      throw new Error(
        `quoted with Permit2 deadline ${op.expires}; submit answered ${submit.status} ${submit.text.slice(0, 120)}`,
      );
    }
    expect(route.status).toBe(400);
    expect(route.json.message).toMatch(/^customDeadline must be at most \d+ \(2592000 seconds ahead\)$/);
  });

  // Last: on unfixed code it leaves an unusable ETH price behind.
  test('21.9 a price event with a huge usd is refused at ingestion; quotes keep working', async () => {
    const res = await ingest(api, [{ id: eventId(), type: 'price', symbol: 'ETH', usd: 1e300 }]);
    const account = await fundedAccount(api, '5000000');
    const route = await call(api, 'POST', '/intents/route', {
      body: alpsInput(account.address, [{ tokenAddress: ARB_USDC, amount: '1000000' }]),
    });
    expect({ ingest: res.status, route: route.status }).toEqual({ ingest: 400, route: 200 });
  });
});

describe('21.8 fee sponsorship is a per-project entitlement', () => {
  const SPONSOR_ALL = {
    gasSponsored: true,
    bridgeFeesSponsored: true,
    swapFeesSponsored: true,
    protocolFeesSponsored: true,
  };
  const REFUSED =
    'sponsorSettings: this project is not entitled to fee sponsorship (send no sponsorSettings, or all false)';
  const usdc = [{ tokenAddress: ARB_USDC, amount: '1000000' }];
  const cli = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...api.env.env },
    });
  const as = (key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(api, method, path, { body, headers: { 'x-api-key': key, ...headers } });
  const totals = async (key: string) => (await as(key, 'GET', '/sponsorship')).json;

  test('21.8 sponsorship: a project without the entitlement cannot get fees zeroed on any host', async () => {
    const { apiKey } = await createProject(api.db, 'unsponsored');
    const account = await fundedAccount(api, '5000000');
    for (const path of ['/intents/route', '/intents/cost']) {
      const res = await as(apiKey, 'POST', path, alpsInput(account.address, usdc, { sponsorSettings: SPONSOR_ALL }));
      expect({ path, status: res.status, message: res.json.message, errors: res.json.errors }).toEqual({
        path,
        status: 403,
        message: REFUSED,
        errors: [{ message: REFUSED }],
      });
    }
    for (const sponsorSettings of [{ gas: true }, { bridgeFees: true }, { swapFees: true }]) {
      const res = await as(
        apiKey,
        'POST',
        '/quotes',
        {
          account: { address: account.address },
          destinationChainId: 'eip155:42161',
          tokenRequests: usdc,
          options: { sponsorSettings },
        },
        BLANC,
      );
      expect({ status: res.status, code: res.json.code, message: res.json.message }).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        message: REFUSED,
      });
    }
    // The legacy host takes no sponsor settings: sent anyway, they are ignored and the fees charged.
    const legacy = await as(apiKey, 'POST', `/legacy/accounts/${account.address}/bundles/path`, {
      targetChainId: 42161,
      tokenTransfers: usdc,
      targetAccount: account.address,
      targetExecutions: [],
      options: { sponsorSettings: SPONSOR_ALL },
    });
    expect(legacy.status).toBe(200);
    expect(BigInt(legacy.json.orderBundles[0].orderBundle.segments[0].idsAndAmounts[0][1])).toBeGreaterThan(1_000_000n);
    // What the published clients send by default (settings false, or none) is quoted with the fees charged.
    for (const options of [
      {
        sponsorSettings: {
          gasSponsored: false,
          bridgeFeesSponsored: false,
          swapFeesSponsored: false,
          protocolFeesSponsored: false,
        },
      },
      {},
    ]) {
      const res = await as(apiKey, 'POST', '/intents/route', alpsInput(account.address, usdc, options));
      expect(res.status).toBe(200);
      expect(BigInt(res.json.intentCost.tokensReceived[0].fee)).toBeGreaterThan(0n);
    }
    const blanc = await as(
      apiKey,
      'POST',
      '/quotes',
      {
        account: { address: account.address },
        destinationChainId: 'eip155:42161',
        tokenRequests: usdc,
        options: { sponsorSettings: { gas: false, bridgeFees: false, swapFees: false } },
      },
      BLANC,
    );
    expect(blanc.status).toBe(200);
    expect(await totals(apiKey)).toEqual({ entitled: false, intents: 0, usd: '0', tokens: [] });
  });

  test('21.8 sponsorship: entitlement on (CLI) sponsors fees; recorded once per submitted intent, not per quote or retry; off again refuses', async () => {
    const { apiKey, projectId } = await createProject(api.db, 'sponsored');
    const { apiKey: otherKey } = await createProject(api.db, 'bystander');
    const on = await cli('projects', 'sponsorship', projectId, 'on');
    expect(JSON.parse(on.stdout.trim().split('\n').pop()!)).toEqual({ projectId, sponsorship: true });

    const account = await fundedAccount(api, '5000000');
    const quote = async () => {
      const res = await as(
        apiKey,
        'POST',
        '/intents/route',
        alpsInput(account.address, usdc, { sponsorSettings: SPONSOR_ALL }),
      );
      expect(res.status).toBe(200);
      return res.json;
    };
    const first = await quote();
    expect(first.intentCost.tokensReceived[0].fee).toBe('0');
    expect(BigInt(first.intentOp.elements[0].idsAndAmounts[0][1])).toBe(1_000_000n); // the user spends exactly the target
    await quote();
    expect(await totals(apiKey)).toMatchObject({ entitled: true, intents: 0, usd: '0', tokens: [] }); // quotes record nothing

    const op = await signed(account, first.intentOp);
    const submitted = await as(apiKey, 'POST', '/intent-operations', { signedIntentOp: op });
    expect(submitted.status).toBe(201);
    const after = await totals(apiKey);
    expect(after).toMatchObject({
      entitled: true,
      intents: 1,
      tokens: [
        {
          chainId: 42161,
          tokenAddress: ARB_USDC.toLowerCase(),
          symbol: 'USDC',
          decimals: 6,
          amount: expect.stringMatching(/^[1-9][0-9]*$/),
        },
      ],
    });
    expect(Number(after.usd)).toBeGreaterThan(0);
    // A retried submit answers the same intent and records nothing more.
    const retried = await as(apiKey, 'POST', '/intent-operations', { signedIntentOp: op });
    expect(retried.json.result.id).toBe(submitted.json.result.id);
    expect(await totals(apiKey)).toEqual(after);
    expect(await totals(otherKey)).toEqual({ entitled: false, intents: 0, usd: '0', tokens: [] });

    // Withdrawn: new sponsored quotes are refused, and so is a sponsored quote issued before (nothing reserved).
    const pending = await quote();
    expect(
      JSON.parse((await cli('projects', 'sponsorship', projectId, 'off')).stdout.trim().split('\n').pop()!),
    ).toEqual({ projectId, sponsorship: false });
    expect(
      (await as(apiKey, 'POST', '/intents/route', alpsInput(account.address, usdc, { sponsorSettings: SPONSOR_ALL })))
        .status,
    ).toBe(403);
    const late = await as(apiKey, 'POST', '/intent-operations', {
      signedIntentOp: await signed(account, pending.intentOp),
    });
    expect({ status: late.status, message: late.json.message }).toEqual({
      status: 403,
      message: 'This project is no longer entitled to fee sponsorship; request a new route',
    });
    expect(await totals(apiKey)).toEqual({ ...after, entitled: false });
    await expect(cli('projects', 'sponsorship', projectId, 'maybe')).rejects.toMatchObject({ code: 2 });
  });
});
