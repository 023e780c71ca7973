import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { intentWorkflowId } from '../../workflows/contracts/intent-lifecycle';
import { acceptBundles } from '../../src/intents/bundle-store';
import {
  ARB_USDC,
  BASE_USDC,
  eventId,
  getCompactTypedData,
  lockedSnapshot,
  walletSnapshot,
  TX,
} from '../support/fixtures';
import { Api, call, ingest, startApi, until } from '../support/harness';
import { activeReservations } from '../support/reservations';
import { newProject } from '../support/projects';

/* eslint-disable @typescript-eslint/no-explicit-any */
const BLANC = { 'x-api-version': '2026-04.blanc' };
const CAIP2 = /^eip155:[1-9][0-9]*$/;
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** Locked and wallet USDC on Base, so both funding methods (and so several routes) are possible. */
async function lockedAndWalletFunded(): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  await ingest(api, [lockedSnapshot(account.address, '5000000'), walletSnapshot(account.address, '5000000')]);
  return account;
}

/** Every chain-id field of a blanc body (outside the EIP-712 typed data, which signers need numeric) is CAIP-2. */
function chainFields(value: unknown, path = '', out: { path: string; value: unknown }[] = []) {
  if (Array.isArray(value)) value.forEach((v, i) => chainFields(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'signData') continue;
      if (/chainId$|ChainId$/.test(k)) out.push({ path: `${path}.${k}`, value: v });
      if (k === 'chainIds') (v as unknown[]).forEach((c, i) => out.push({ path: `${path}.${k}[${i}]`, value: c }));
      if (k === 'tokenRequirements')
        Object.keys(v as object).forEach((c) => out.push({ path: `${path}.${k}{${c}}`, value: c }));
      chainFields(v, `${path}.${k}`, out);
    }
  }
  return out;
}

/** A blanc route signed as served (each origin element, then the destination) and submitted: the API's answer. */
async function submitRoute(account: PrivateKeyAccount, route: any) {
  const origin = await Promise.all(route.signData.origin.map((td: any) => account.signTypedData(td)));
  const destination = await account.signTypedData(route.signData.destination);
  return call(api, 'POST', '/intents', {
    headers: BLANC,
    body: { intentId: route.intentId, signatures: { origin, destination } },
  });
}

interface Driver {
  quote(account: PrivateKeyAccount): Promise<{ intentId: string; response: any }>;
  submit(account: PrivateKeyAccount, quoted: any): Promise<{ body: any; status: number; intentId: string }>;
  status(intentId: string): Promise<any>;
}

const alps: Driver = {
  async quote(account) {
    const res = await call(api, 'POST', '/intents/route', {
      body: {
        account: { address: account.address, accountType: 'EOA', setupOps: [] },
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
      },
    });
    expect(res.status).toBe(200);
    return { intentId: BigInt(res.json.intentOp.nonce).toString(), response: res.json };
  },
  async submit(account, quoted) {
    // The 1.x client builds the typed data itself (its own builder), signs once for every element.
    const op = quoted.intentOp;
    const signature = await account.signTypedData(getCompactTypedData(op));
    const res = await call(api, 'POST', '/intent-operations', {
      body: {
        signedIntentOp: { ...op, originSignatures: op.elements.map(() => signature), destinationSignature: signature },
      },
    });
    return { status: res.status, body: res.json, intentId: res.json?.result?.id };
  },
  async status(intentId) {
    return (await call(api, 'GET', `/intent-operation/${intentId}`)).json;
  },
};

const blanc: Driver = {
  async quote(account) {
    const res = await call(api, 'POST', '/quotes', {
      headers: BLANC,
      body: {
        account: { address: account.address, accountType: 'EOA', mockSignatures: { 'eip155:8453': '0x' } },
        destinationChainId: 'eip155:42161',
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
        options: { sponsorSettings: { gas: false, bridgeFees: false, swapFees: false } },
      },
    });
    expect(res.status).toBe(200);
    return { intentId: res.json.routes[0].intentId, response: res.json };
  },
  async submit(account, quoted) {
    // Every typed data signed exactly as served.
    const route = quoted.routes[0];
    const res = await submitRoute(account, route);
    return { status: res.status, body: res.json, intentId: res.json?.intentId };
  },
  async status(intentId) {
    return (await call(api, 'GET', `/intents/${intentId}`, { headers: BLANC })).json;
  },
};

describe.each([
  ['2026-01.alps', alps],
  ['2026-04.blanc', blanc],
] as const)('the whole intent flow under %s', (version, driver) => {
  test('fund → quote → sign as served → submit → fill and claim → COMPLETED', async () => {
    const account = await lockedAndWalletFunded();
    const quoted = await driver.quote(account);

    if (version === '2026-04.blanc') {
      const { routes } = quoted.response;
      // Locks and wallet funds, each over more than one settlement layer: several routes, best first.
      expect(routes.length).toBeGreaterThan(1);
      expect(new Set(routes.map((r: any) => r.funding))).toEqual(new Set(['LOCKED', 'UNLOCKED']));
      expect(new Set(routes.map((r: any) => r.intentId)).size).toBe(routes.length);
      const net = (r: any) => -r.cost.fees.total.usd; // same output on every route: what differs is the fees
      for (const r of routes.slice(1)) {
        expect(
          net(routes[0]) > net(r) ||
            (net(routes[0]) === net(r) && routes[0].estimatedFillSeconds <= r.estimatedFillSeconds),
        ).toBe(true);
      }
      for (const r of routes) {
        expect(r.cost.output).toEqual([
          { chainId: 'eip155:42161', tokenAddress: ARB_USDC, symbol: 'USDC', decimals: 6, amount: '1000000' },
        ]);
        expect(BigInt(r.cost.input[0].amount)).toBeGreaterThan(1_000_000n);
        expect(r.cost.input[0].chainId).toBe('eip155:8453');
        expect(Number.isInteger(r.expiresAt) && Number.isInteger(r.fillDeadline)).toBe(true);
        expect(r.signData.origin.length).toBeGreaterThan(0);
      }
      // EOAs spending wallet funds get the approvals they need, keyed by CAIP-2 chain.
      const wallet = routes.find((r: any) => r.funding === 'UNLOCKED');
      expect(Object.keys(wallet.tokenRequirements)).toEqual(['eip155:8453']);
      expect(routes.find((r: any) => r.funding === 'LOCKED').tokenRequirements).toBeUndefined();
      for (const f of chainFields(quoted.response))
        expect([f.path, f.value]).toEqual([f.path, expect.stringMatching(CAIP2)]);
      for (const renamed of ['intentOp', 'intentCost', 'userAddress', 'destinationGasUnits'])
        expect(JSON.stringify(quoted.response)).not.toContain(`"${renamed}"`);
    }

    const submitted = await driver.submit(account, quoted.response);
    expect(submitted.status).toBe(201);
    expect(submitted.intentId).toBe(quoted.intentId);
    expect(submitted.body).toEqual(
      version === '2026-04.blanc'
        ? { intentId: quoted.intentId }
        : { result: { id: quoted.intentId, status: 'PENDING' } },
    );
    expect(await activeReservations(api, quoted.intentId)).toBe(1);

    // The same signed submit again: the same id, one intent, one workflow.
    const again = await driver.submit(account, quoted.response);
    expect([again.status, again.intentId]).toEqual([201, quoted.intentId]);
    expect(await activeReservations(api, quoted.intentId)).toBe(1);
    const runs: string[] = [];
    for await (const wf of api.temporal.workflow.list({ query: `WorkflowId = '${intentWorkflowId(quoted.intentId)}'` }))
      runs.push(wf.runId);
    expect(runs.length).toBeLessThanOrEqual(1); // visibility may lag; the describe below proves it exists
    await api.temporal.workflow.getHandle(intentWorkflowId(quoted.intentId)).describe();

    if (version === '2026-04.blanc') {
      // The other routes were alternatives: once one is submitted they are refused, whatever the balance allows.
      const sibling = quoted.response.routes[1];
      const res = await submitRoute(account, sibling);
      expect([res.status, res.json.code]).toEqual([409, 'CONFLICT']);
      expect(await activeReservations(api, sibling.intentId)).toBe(0);
    }

    const pending = await driver.status(quoted.intentId);
    expect(pending.status).toBe('PENDING');

    const intentId = quoted.intentId;
    const filledAt = Math.floor(Date.now() / 1000); // a fill is mined after its quote
    await ingest(api, [
      {
        id: `claim-${intentId}`,
        type: 'claim',
        chainId: 8453,
        nonce: intentId,
        transactionHash: TX(2),
        timestamp: 1_700_000_100,
      },
      {
        id: `fill-${intentId}`,
        type: 'fill',
        chainId: 42161,
        nonce: intentId,
        transactionHash: TX(1),
        timestamp: filledAt,
      },
    ]);
    const done = await until('COMPLETED', async () => {
      const status = await driver.status(intentId);
      return status.status === 'COMPLETED' ? status : undefined;
    });
    expect(done.status).toBe('COMPLETED');
    if (version === '2026-04.blanc') {
      expect(done).toEqual({
        intentId,
        status: 'COMPLETED',
        destinationChainId: 'eip155:42161',
        accountAddress: account.address,
        claims: [
          { chainId: 'eip155:8453', status: 'CLAIMED', claimTimestamp: 1_700_000_100, claimTransactionHash: TX(2) },
        ],
        fillTimestamp: filledAt,
        fillTransactionHash: TX(1),
      });
    } else {
      expect(done).toMatchObject({
        destinationChainId: 42161,
        userAddress: account.address,
        fillTimestamp: filledAt,
        fillTransactionHash: TX(1),
      });
      expect(done.claims).toEqual([
        {
          chainId: 8453,
          status: 'CLAIMED',
          claimTimestamp: 1_700_000_100,
          claimTransactionHash: TX(2),
          depositId: intentId,
        },
      ]);
    }
  });
});

describe('the version envelope', () => {
  const expectEnvelope = (res: { status: number; json: any }, status: number, code: string) => {
    expect([res.status, res.json?.code]).toEqual([status, code]);
    expect(res.json).toEqual({
      code,
      message: expect.any(String),
      traceId: expect.stringMatching(/^[0-9a-zA-Z-]{8,64}$/),
      ...(res.json.details !== undefined ? { details: res.json.details } : {}),
    });
  };

  test('malformed and unknown versions, invalid bodies, unparseable JSON', async () => {
    expectEnvelope(
      await call(api, 'POST', '/quotes', { headers: { 'x-api-version': 'blanc' }, body: {} }),
      400,
      'VALIDATION_ERROR',
    );
    expectEnvelope(
      await call(api, 'POST', '/quotes', { headers: { 'x-api-version': '2027-01.zeta' }, body: {} }),
      400,
      'VALIDATION_ERROR',
    );
    const invalid = await call(api, 'POST', '/quotes', {
      headers: BLANC,
      body: { destinationChainId: 42161, tokenRequests: [], account: {} },
    });
    expectEnvelope(invalid, 400, 'VALIDATION_ERROR');
    expect(invalid.json.details.map((d: any) => d.path.join('.'))).toEqual(
      expect.arrayContaining(['body.destinationChainId', 'body.account.address']),
    );
    expectEnvelope(await call(api, 'POST', '/quotes', { headers: BLANC, raw: '{"account":' }), 400, 'VALIDATION_ERROR');
    // Resource-lock fields have no equivalent in blanc: refused, not silently ignored.
    const account = await lockedAndWalletFunded();
    const lockOnly = await call(api, 'POST', '/quotes', {
      headers: BLANC,
      body: {
        account: { address: account.address },
        destinationChainId: 'eip155:42161',
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1' }],
        options: { topupCompact: true },
      },
    });
    expectEnvelope(lockOnly, 400, 'VALIDATION_ERROR');
    expect(lockOnly.json.message).toContain('topupCompact');
    // Domain refusals carry their own codes.
    const broke = await call(api, 'POST', '/quotes', {
      headers: BLANC,
      body: {
        account: { address: account.address },
        destinationChainId: 'eip155:42161',
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '999000000000' }],
      },
    });
    expectEnvelope(broke, 400, 'INSUFFICIENT_BALANCE');
    expectEnvelope(
      await call(api, 'POST', '/quotes', {
        headers: BLANC,
        body: {
          account: { address: account.address },
          destinationChainId: 'eip155:424242',
          tokenRequests: [{ tokenAddress: ARB_USDC }],
        },
      }),
      400,
      'UNSUPPORTED_CHAIN',
    );
  });

  test('each version answers only its own paths, in its own error body', async () => {
    for (const [method, path] of [
      ['POST', '/intents/route'],
      ['POST', '/intent-operations'],
      ['GET', '/intent-operation/1'],
      ['POST', '/intents/split'],
      ['POST', '/withdrawals'],
      ['POST', '/batch-withdrawals'],
      ['GET', '/no/such/route'],
    ]) {
      expectEnvelope(
        await call(api, method, path, { headers: BLANC, body: method === 'GET' ? undefined : {} }),
        404,
        'NOT_FOUND',
      );
    }
    for (const [method, path] of [
      ['POST', '/quotes'],
      ['POST', '/intents'],
      ['GET', '/intents/1'],
      ['POST', '/intents/splits'],
    ]) {
      const res = await call(api, method, path, { body: method === 'GET' ? undefined : {} });
      expect([res.status, res.json]).toEqual([
        404,
        {
          message: expect.stringContaining('not found'),
          errors: [{ message: expect.stringContaining('not found') }],
          traceId: expect.any(String),
        },
      ]);
    }
  });

  test('an expired or lost quote is 404 NOT_FOUND; a bad signature is 400 INVALID_SIGNATURE and reserves nothing', async () => {
    const account = await lockedAndWalletFunded();
    const { response } = await blanc.quote(account);
    const route = response.routes[0];
    const good = await Promise.all(route.signData.origin.map((td: any) => account.signTypedData(td)));
    const destination = await account.signTypedData(route.signData.destination);

    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await Promise.all(route.signData.origin.map((td: any) => stranger.signTypedData(td)));
    expectEnvelope(
      await call(api, 'POST', '/intents', {
        headers: BLANC,
        body: { intentId: route.intentId, signatures: { origin: forged, destination } },
      }),
      400,
      'INVALID_SIGNATURE',
    );
    expectEnvelope(
      await call(api, 'POST', '/intents', {
        headers: BLANC,
        body: { intentId: route.intentId, signatures: { origin: [], destination } },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(await activeReservations(api, route.intentId)).toBe(0);

    expectEnvelope(
      await call(api, 'POST', '/intents', {
        headers: BLANC,
        body: { intentId: '123456789', signatures: { origin: good, destination } },
      }),
      404,
      'NOT_FOUND',
    );
    // Another project's key sees no such quote.
    const other = await newProject(api, 'other');
    expectEnvelope(
      await call(other, 'POST', '/intents', {
        headers: BLANC,
        body: { intentId: route.intentId, signatures: { origin: good, destination } },
      }),
      404,
      'NOT_FOUND',
    );
    // Its time-to-live passed (moved in the database rather than waited for).
    await api.db.query("UPDATE quotes SET expires_at = now() - interval '1 second' WHERE nonce = $1", [route.intentId]);
    expectEnvelope(
      await call(api, 'POST', '/intents', {
        headers: BLANC,
        body: { intentId: route.intentId, signatures: { origin: good, destination } },
      }),
      404,
      'NOT_FOUND',
    );
    expect(await activeReservations(api, route.intentId)).toBe(0);
    expectEnvelope(await call(api, 'GET', '/intents/987654321', { headers: BLANC }), 404, 'NOT_FOUND');
  });

  test('over quota: 429 TOO_MANY_REQUESTS with Retry-After and RateLimit headers; no key: 401 UNAUTHORIZED', async () => {
    const p = await newProject(api, 'limited-blanc');
    await api.db.query('UPDATE projects SET rate_limit_rps = 1, rate_limit_burst = 0 WHERE id = $1', [p.projectId]);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(p, 'GET', '/chains', { headers: BLANC })));
    const refused = answers.find((a) => a.status === 429)!;
    expectEnvelope(refused, 429, 'TOO_MANY_REQUESTS');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-limit')).toBe('1');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expectEnvelope(await call(api, 'GET', '/chains', { headers: { ...BLANC, 'x-api-key': '' } }), 401, 'UNAUTHORIZED');
    expectEnvelope(
      await call(api, 'GET', '/chains', { headers: { ...BLANC, 'x-api-key': 'nope' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('splits: CAIP-2 chain, 422 INSUFFICIENT_LIQUIDITY with what could be formed', async () => {
    await ingest(api, [
      { id: eventId(), type: 'liquidity', chainId: 42161, settlementLayer: 'ACROSS', token: ARB_USDC, amount: '600' },
    ]);
    const ok = await call(api, 'POST', '/intents/splits', {
      headers: BLANC,
      body: { chainId: 'eip155:42161', tokens: { [ARB_USDC]: '500' } },
    });
    expect([ok.status, ok.json]).toEqual([200, { intents: [{ [ARB_USDC]: '500' }] }]);
    const short = await call(api, 'POST', '/intents/splits', {
      headers: BLANC,
      body: { chainId: 'eip155:42161', tokens: { [ARB_USDC]: '10000000000000' } },
    });
    expectEnvelope(short, 422, 'INSUFFICIENT_LIQUIDITY');
    expect(short.json.details.unfillable[ARB_USDC]).toBeDefined();
    expectEnvelope(
      await call(api, 'POST', '/intents/splits', {
        headers: BLANC,
        body: { chainId: 42161, tokens: { [ARB_USDC]: '1' } },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

test('blanc: a wallet-funded (Permit2) route signed as served is accepted, with its approvals named', async () => {
  const account = privateKeyToAccount(generatePrivateKey());
  await ingest(api, [walletSnapshot(account.address, '5000000')]);
  const { response } = await blanc.quote(account);
  expect(response.routes.every((r: any) => r.funding === 'UNLOCKED')).toBe(true);
  const route = response.routes[0];
  expect(route.signData.origin[0].primaryType).toBe('PermitBatchWitnessTransferFrom');
  expect(route.tokenRequirements['eip155:8453'][BASE_USDC]).toMatchObject({
    type: 'approval',
    amount: route.cost.input[0].amount,
  });
  const res = await submitRoute(account, route);
  expect([res.status, res.json]).toEqual([201, { intentId: route.intentId }]);
  expect(await activeReservations(api, route.intentId)).toBe(1);
});

test("a quote's routes are spent once across hosts: a sibling spent as a legacy bundle refuses the intent, and the reverse", async () => {
  const account = await lockedAndWalletFunded();
  const { response } = await blanc.quote(account);
  const [a, b, c] = response.routes;
  // Route B spent as a legacy bundle (recorded as acceptBundles records it; its signature path is legacy-bundles.test.ts).
  await api.db.query(
    `INSERT INTO bundles (id, project_id, account, status, target_chain_id, origin_chain_ids, fill_deadline, signed_bundle)
     VALUES ($1, $2, $3, 'PENDING', 42161, '{8453}', $4, '{}')`,
    [b.intentId, api.projectId, account.address.toLowerCase(), b.fillDeadline],
  );
  const refused = await submitRoute(account, a);
  expect([refused.status, refused.json.code]).toEqual([409, 'CONFLICT']);
  expect(await activeReservations(api, a.intentId)).toBe(0);
  // And a bundle of a route whose sibling is an intent: refused in the same transaction that would reserve it.
  await api.db.query('DELETE FROM bundles WHERE id = $1', [b.intentId]);
  const accepted = await submitRoute(account, a);
  expect(accepted.status).toBe(201);
  await expect(
    acceptBundles(api.db, api.projectId, [{ id: c.intentId, signed: {}, pendingEvent: {} }], {
      fillGraceSeconds: 1,
      proofDays: 30,
    }),
  ).rejects.toThrow('another route of its quote was already submitted');
  expect(await activeReservations(api, c.intentId)).toBe(0);
});

describe('blanc reads and the alps deprecation notice', () => {
  test('portfolio: symbol/chains/address/decimals, CAIP-2, repeated filters', async () => {
    const account = await lockedAndWalletFunded();
    const res = await call(
      api,
      'GET',
      `/accounts/${account.address}/portfolio?chainIds=eip155:8453&chainIds=eip155:1&tokens=eip155:8453:${BASE_USDC}`,
      { headers: BLANC },
    );
    expect(res.status).toBe(200);
    expect(res.json.portfolio).toEqual([
      {
        symbol: 'USDC',
        decimals: 6,
        balance: { locked: '5000000', unlocked: '5000000' },
        chains: [
          {
            chainId: 'eip155:8453',
            address: BASE_USDC,
            decimals: 6,
            balance: { locked: '5000000', unlocked: '5000000' },
          },
        ],
      },
    ]);
    expect(res.headers.get('deprecation')).toBeNull();
    const wrongForm = await call(api, 'GET', `/accounts/${account.address}/portfolio?chainIds=8453`, {
      headers: BLANC,
    });
    expect([wrongForm.status, wrongForm.json.code]).toEqual([400, 'VALIDATION_ERROR']);
    const chains = await call(api, 'GET', '/chains', { headers: BLANC });
    expect(chains.json.chains.every((c: any) => CAIP2.test(c.id))).toBe(true);
  });

  test('alps answers carry Deprecation, Link (and Sunset once configured); version-free routes do not', async () => {
    const account = await lockedAndWalletFunded();
    const alpsAnswer = await call(api, 'GET', `/accounts/${account.address}/portfolio`);
    expect(alpsAnswer.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(alpsAnswer.headers.get('link')).toBe(
      '</versions>; rel="deprecation", </openapi/2026-04.blanc.json>; rel="successor-version"',
    );
    expect(alpsAnswer.headers.get('sunset')).toBeNull(); // unset by default
    const refused = await call(api, 'POST', '/intents/route', { body: {} });
    expect([refused.status, refused.headers.get('deprecation')]).toEqual([400, expect.stringMatching(/^@\d+$/)]);
    expect((await call(api, 'GET', '/health')).headers.get('deprecation')).toBeNull();

    const versions = await call(api, 'GET', '/versions', { headers: { 'x-api-key': '' } });
    expect(versions.json).toMatchObject({
      current: '2026-04.blanc',
      versions: [
        { version: '2026-01.alps', status: 'deprecated' },
        { version: '2026-04.blanc', status: 'current' },
      ],
    });
    expect(versions.json.migration.changes).toContainEqual({
      alps: 'POST /intents/route',
      blanc: expect.stringContaining('POST /quotes'),
    });
  });

  test('one OpenAPI document per version, from the validating schemas', async () => {
    const alpsDoc = (await call(api, 'GET', '/openapi.json')).json;
    const blancDoc = (await call(api, 'GET', '/openapi.json', { headers: BLANC })).json;
    expect((await call(api, 'GET', '/openapi/2026-04.blanc.json')).json).toEqual(blancDoc);
    expect([alpsDoc.info.version, blancDoc.info.version]).toEqual(['2026-01.alps', '2026-04.blanc']);
    expect(Object.keys(blancDoc.paths)).toEqual(
      expect.arrayContaining([
        '/quotes',
        '/intents',
        '/intents/{id}',
        '/intents/splits',
        '/accounts/{userAddress}/portfolio',
      ]),
    );
    expect(Object.keys(blancDoc.paths)).not.toEqual(expect.arrayContaining(['/withdrawals']));
    expect(blancDoc.paths['/withdrawals']).toBeUndefined();
    expect(alpsDoc.paths['/quotes']).toBeUndefined();
    expect(
      blancDoc.paths['/quotes'].post.requestBody.content['application/json'].schema.properties.destinationChainId
        .pattern,
    ).toContain('eip155');
    expect(blancDoc.paths['/quotes'].post.responses['4XX'].content['application/json'].schema.required).toEqual([
      'code',
      'message',
      'traceId',
    ]);
    expect((await call(api, 'GET', '/openapi/2030-01.zeta.json')).status).toBe(404);
  });
});
