import { Api, call, startApi } from '../support/harness';
import { ARB_USDC, BASE_USDC } from '../support/fixtures';
import { newProject } from '../support/projects';
import { DP, newOwner, projectSigner, sessionDigest, signSessions } from '../support/deposits';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const arbUsdc = { chain: 'eip155:42161', token: ARB_USDC };

describe('accounts: setup, register-managed, read back', () => {
  test('a managed account belongs to its project; registering again answers it; another project neither sees nor takes it', async () => {
    const p = await newProject(api, 'deposit-accounts');
    const { owner, address } = newOwner();
    const signer = api.services.sessionSigner(p.projectId).address;
    expect(await projectSigner(p)).toBe(signer);
    const body = { account: { address, owner: owner.address, sessionSigner: signer, target: arbUsdc } };
    const created = await call(p, 'POST', `${DP}/register-managed`, { body });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      address,
      owner: owner.address,
      ownerType: 'EOA',
      managed: true,
      sessionSigner: signer,
      target: { chain: 'eip155:42161', token: ARB_USDC, recipient: address },
      requireCompliance: false,
      sessionChains: 'all',
      createdAt: expect.any(String),
    });
    expect((await call(p, 'POST', `${DP}/register-managed`, { body })).status).toBe(200);
    const read = await call(p, 'GET', `${DP}/account/${address.toLowerCase()}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(created.json);

    const other = await newProject(api, 'other');
    const foreign = await call(other, 'GET', `${DP}/account/${address}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({
      error: 'Account not found',
      code: 'ACCOUNT-1',
      details: [
        { message: 'is not a registered account of this project', path: ['params', 'address'], code: 'ACCOUNT-1' },
      ],
      traceId: expect.any(String),
    });
    // Another project may register the same address (its own registration; 21.3: it does not lock this one out),
    // and this project's registration stays as it was (which one receives deposits: test/integration/tenancy.test.ts).
    const theirs = await call(other, 'POST', `${DP}/register-managed`, {
      body: { account: { ...body.account, sessionSigner: await projectSigner(other) } },
    });
    expect(theirs.status).toBe(201);
    expect((await call(p, 'GET', `${DP}/account/${address}`)).json).toEqual(created.json);
    const changed = await call(p, 'POST', `${DP}/register-managed`, {
      body: { account: { ...body.account, target: { ...arbUsdc, recipient: owner.address } } },
    });
    expect(changed.status).toBe(409);
  });

  test('refusals: a foreign session signer, an unsupported target token (code TOKEN-1), a bad body', async () => {
    const p = await newProject(api, 'deposit-accounts');
    const { owner, address } = newOwner();
    const signer = await call(p, 'POST', `${DP}/register-managed`, {
      body: { account: { address, owner: owner.address, sessionSigner: owner.address, target: arbUsdc } },
    });
    expect(signer.status).toBe(400);
    expect(signer.json.details).toEqual([
      {
        message: `must be ${await projectSigner(p)} (GET /chains → sessionSigner)`,
        path: ['body', 'account', 'sessionSigner'],
        code: 'const',
      },
    ]);
    const token = await call(p, 'POST', `${DP}/setup`, {
      body: { account: { address, owner: owner.address, target: { chain: 'eip155:42161', token: BASE_USDC } } },
    });
    expect(token.status).toBe(400);
    expect(token.json).toMatchObject({
      error: `Token ${BASE_USDC} not supported on eip155:42161`,
      code: 'TOKEN-1',
      details: [{ path: ['body', 'account', 'target', 'token'], code: 'TOKEN-1' }],
    });
    const bad = await call(p, 'POST', `${DP}/setup`, { body: { account: { address: 'nope', owner: owner.address } } });
    expect(bad.status).toBe(400);
    expect(bad.json.details).toEqual(
      expect.arrayContaining([
        { message: expect.any(String), path: ['body', 'account', 'address'], code: 'pattern' },
        { message: "must have required property 'target'", path: ['body', 'account', 'target'], code: 'required' },
      ]),
    );
  });

  test("each project has its own session signer; registering with another project's signer is refused", async () => {
    const [p1, p2] = [await newProject(api, 'deposit-accounts'), await newProject(api, 'deposit-accounts')];
    const [s1, s2] = [await projectSigner(p1), await projectSigner(p2)];
    expect(s1).not.toBe(s2);
    const { owner, address } = newOwner();
    const foreign = await call(p2, 'POST', `${DP}/register-managed`, {
      body: { account: { address, owner: owner.address, sessionSigner: s1, target: arbUsdc } },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.json).toEqual({
      error: "sessionSigner is not this project's session signer",
      details: [
        {
          message: `must be ${s2} (GET /chains → sessionSigner)`,
          path: ['body', 'account', 'sessionSigner'],
          code: 'const',
        },
      ],
      traceId: expect.any(String),
    });
    const own = await call(p1, 'POST', `${DP}/register-managed`, {
      body: { account: { address, owner: owner.address, sessionSigner: s1, target: arbUsdc } },
    });
    expect(own.json.sessionSigner).toBe(s1);
    // Sessions signed for one project are void in another (the domain names the project's signer).
    const setup = newOwner();
    expect(
      (
        await call(p2, 'POST', `${DP}/setup`, {
          body: { account: { address: setup.address, owner: setup.owner.address, target: arbUsdc } },
        })
      ).status,
    ).toBe(201);
    const crossed = await call(p2, 'POST', `${DP}/account/${setup.address}/session`, {
      body: { sessionDetails: await signSessions(setup.owner, setup.address, 42161, [8453], s1) },
    });
    expect(crossed.status).toBe(400);
    expect(crossed.json.error).toBe("Invalid session signature: not signed by the account's owner");
  });

  test('a user-owned account (POST /setup) with sessions signed by its owner lists their chains', async () => {
    const p = await newProject(api, 'deposit-accounts');
    const { owner, address } = newOwner();
    const sessionDetails = await signSessions(owner, address, 42161, [8453, 10], await projectSigner(p));
    const res = await call(p, 'POST', `${DP}/setup`, {
      body: { account: { address, owner: owner.address, target: arbUsdc, sessionDetails } },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ managed: false, sessionChains: ['eip155:10', 'eip155:8453'] });
  });
});

describe('POST /account/{address}/session', () => {
  async function account() {
    const p = await newProject(api, 'deposit-sessions');
    const { owner, address } = newOwner();
    expect(
      (await call(p, 'POST', `${DP}/setup`, { body: { account: { address, owner: owner.address, target: arbUsdc } } }))
        .status,
    ).toBe(201);
    return { p, owner, address };
  }

  test("the owner's signature over the documented digest: 200 {message}, and the chains become usable", async () => {
    const { p, owner, address } = await account();
    const sessionDetails = await signSessions(owner, address, 42161, [8453], await projectSigner(p));
    const res = await call(p, 'POST', `${DP}/account/${address}/session`, { body: { sessionDetails } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: 'Session details added for 1 chain' });
    expect((await call(p, 'GET', `${DP}/account/${address}`)).json.sessionChains).toEqual(['eip155:8453']);
  });

  test('a signature by someone else than the owner: 400 with the exact body', async () => {
    const { p, address } = await account();
    const stranger = newOwner().owner;
    const sessionDetails = await signSessions(stranger, address, 42161, [8453], await projectSigner(p));
    const res = await call(p, 'POST', `${DP}/account/${address}/session`, { body: { sessionDetails } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: "Invalid session signature: not signed by the account's owner",
      details: [
        {
          message: "is not the account owner's signature over the session details",
          path: ['body', 'sessionDetails', 'signature'],
          code: 'signature',
        },
      ],
      traceId: expect.any(String),
    });
    expect((await call(p, 'GET', `${DP}/account/${address}`)).json.sessionChains).toEqual([]);
  });

  test('an unknown account: 404 with the exact body', async () => {
    const { p, owner } = await account();
    const unknown = newOwner().address;
    const res = await call(p, 'POST', `${DP}/account/${unknown}/session`, {
      body: { sessionDetails: await signSessions(owner, unknown, 42161, [8453], await projectSigner(p)) },
    });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      error: 'Account not found',
      code: 'ACCOUNT-1',
      details: [
        { message: 'is not a registered account of this project', path: ['params', 'address'], code: 'ACCOUNT-1' },
      ],
      traceId: expect.any(String),
    });
  });

  test('bad bodies and paths: 400 with every problem in details', async () => {
    const { p, owner, address } = await account();
    const missing = await call(p, 'POST', `${DP}/account/${address}/session`, { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({
      error: "body.sessionDetails must have required property 'sessionDetails'",
      code: 'VALIDATION_ERROR',
      details: [
        { message: "must have required property 'sessionDetails'", path: ['body', 'sessionDetails'], code: 'required' },
      ],
      traceId: expect.any(String),
    });
    const shapes = await call(p, 'POST', `${DP}/account/${address}/session`, {
      body: { sessionDetails: { hashesAndChainIds: [{ chainId: 0, sessionDigest: '0x12' }], signature: 'zz' } },
    });
    expect(shapes.status).toBe(400);
    expect(shapes.json).toEqual({
      error: 'body.sessionDetails.hashesAndChainIds.0.chainId must be >= 1',
      code: 'VALIDATION_ERROR',
      details: [
        {
          message: 'must be >= 1',
          path: ['body', 'sessionDetails', 'hashesAndChainIds', '0', 'chainId'],
          code: 'minimum',
        },
        {
          message: 'must match pattern "^0x[0-9a-fA-F]{64}$"',
          path: ['body', 'sessionDetails', 'hashesAndChainIds', '0', 'sessionDigest'],
          code: 'pattern',
        },
        {
          message: 'must NOT have fewer than 4 characters',
          path: ['body', 'sessionDetails', 'signature'],
          code: 'minLength',
        },
        {
          message: 'must match pattern "^0x([0-9a-fA-F]{2})*$"',
          path: ['body', 'sessionDetails', 'signature'],
          code: 'pattern',
        },
      ],
      traceId: expect.any(String),
    });
    const empty = await call(p, 'POST', `${DP}/account/${address}/session`, {
      body: { sessionDetails: { hashesAndChainIds: [], signature: '0x1234' } },
    });
    expect(empty.json).toEqual({
      error: 'body.sessionDetails.hashesAndChainIds must NOT have fewer than 1 items',
      code: 'VALIDATION_ERROR',
      details: [
        {
          message: 'must NOT have fewer than 1 items',
          path: ['body', 'sessionDetails', 'hashesAndChainIds'],
          code: 'minItems',
        },
      ],
      traceId: expect.any(String),
    });
    const extra = await call(p, 'POST', `${DP}/account/${address}/session`, {
      body: {
        sessionDetails: {
          hashesAndChainIds: [{ chainId: 8453, sessionDigest: sessionDigest(1) }],
          signature: '0x1234',
          foo: 1,
        },
      },
    });
    expect(extra.json).toEqual({
      error: 'body.sessionDetails.foo must NOT have additional properties',
      code: 'VALIDATION_ERROR',
      details: [
        {
          message: 'must NOT have additional properties',
          path: ['body', 'sessionDetails', 'foo'],
          code: 'additionalProperties',
        },
      ],
      traceId: expect.any(String),
    });
    const chain = await call(p, 'POST', `${DP}/account/${address}/session`, {
      body: {
        sessionDetails: {
          hashesAndChainIds: [{ chainId: 999999, sessionDigest: sessionDigest(1) }],
          signature: '0x1234',
        },
      },
    });
    expect(chain.status).toBe(400);
    expect(chain.json).toEqual({
      error: 'chain 999999 is not supported',
      code: 'CHAIN-1',
      details: [
        {
          message: 'chain 999999 is not supported',
          path: ['body', 'sessionDetails', 'hashesAndChainIds', '0', 'chainId'],
          code: 'CHAIN-1',
        },
      ],
      traceId: expect.any(String),
    });
    const path = await call(p, 'POST', `${DP}/account/0x1234/session`, {
      body: { sessionDetails: await signSessions(owner, address, 42161, [8453], await projectSigner(p)) },
    });
    expect(path.status).toBe(400);
    expect(path.json).toEqual({
      error: 'params.address must match pattern "^0x[0-9a-fA-F]{40}$"',
      code: 'VALIDATION_ERROR',
      details: [{ message: 'must match pattern "^0x[0-9a-fA-F]{40}$"', path: ['params', 'address'], code: 'pattern' }],
      traceId: expect.any(String),
    });
    // A smart-account owner is verified on chain (ERC-1271/6492, as intents): without an RPC for the chain, a clear 400.
    const smart = newOwner();
    expect(
      (
        await call(p, 'POST', `${DP}/setup`, {
          body: {
            account: { address: smart.address, owner: smart.owner.address, ownerType: 'smartAccount', target: arbUsdc },
          },
        })
      ).status,
    ).toBe(201);
    const onChain = await call(p, 'POST', `${DP}/account/${smart.address}/session`, {
      body: { sessionDetails: await signSessions(smart.owner, smart.address, 42161, [8453], await projectSigner(p)) },
    });
    expect(onChain.status).toBe(400);
    expect(onChain.json).toEqual({
      error: 'Smart account signatures are verified on chain and this deployment cannot verify them on chain 42161',
      details: [
        {
          message:
            'Smart account signatures are verified on chain and this deployment cannot verify them on chain 42161',
          path: ['body', 'sessionDetails', 'signature'],
          code: 'unverifiable',
        },
      ],
      traceId: expect.any(String),
    });
    const raw = await call(p, 'POST', `${DP}/account/${address}/session`, { raw: '{"sessionDetails":' });
    expect(raw.status).toBe(400);
    expect(raw.json).toEqual({ error: 'entity.parse.failed', traceId: expect.any(String) });
  });
});
