import path from 'node:path';
import { concat, serializeErc6492Signature, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ARB_USDC, BASE_USDC, getCompactTypedData } from '../support/fixtures';
import { Api, call, fundLocked, startApi } from '../support/harness';
import { activeReservations } from '../support/reservations';
import { deploy, LocalChain, OWNABLE_VALIDATOR, SmartAccount, smartAccount, startChain } from '../support/chain';
import { freePort } from '../support/global-setup';
import { signAsClient, v0 } from '../support/legacy-client';
import { DP, projectSigner, sessionDigest } from '../support/deposits';
import { sessionTypedData, withdrawTypedData } from '../../src/deposits/session-digest';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const v1: any = require(path.join(sdkDir, 'orchestrator'));
const { createAuthProvider }: any = require(path.join(sdkDir, 'auth/provider'));
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

/**
 * ERC-1271 (deployed) and ERC-6492 (counterfactual) signatures, checked on a local anvil chain through RPC_URL_<id>
 * against a minimal smart account compiled by solc, on both hosts: the 1.x intent submit and the 0.5.x bundle submit.
 */
let api: Api;
let chain: LocalChain;
let v1Client: any; // eslint-disable-line @typescript-eslint/no-explicit-any
let v0Client: any; // eslint-disable-line @typescript-eslint/no-explicit-any
let seq = 0;

beforeAll(async () => {
  api = await startApi();
  chain = await startChain([8453, 42161]);
  v1Client = v1.getOrchestrator(createAuthProvider({ apiKey: api.apiKey }), api.url);
  v0Client = v0.getOrchestrator(api.apiKey, `${api.url}/legacy`);
});
afterAll(async () => {
  await chain.stop();
  await api.close();
});

async function account(deployed: boolean): Promise<SmartAccount> {
  const a = smartAccount(chain, privateKeyToAccount(generatePrivateKey()));
  if (deployed) await deploy(chain, a);
  await fundLocked(api, a.address, '5000000');
  return a;
}

/** With the chain's RPC pointing at a closed port for the duration of `fn`. */
async function withRpcDown<T>(fn: () => Promise<T>): Promise<T> {
  process.env.RPC_URL_8453 = `http://127.0.0.1:${await freePort()}`;
  try {
    return await fn();
  } finally {
    process.env.RPC_URL_8453 = chain.url;
  }
}

describe('1.x intent submit, accountType ERC7579', () => {
  async function quote(a: SmartAccount) {
    const route = await v1Client.getIntentRoute({
      account: { address: a.address, accountType: 'ERC7579', setupOps: [] },
      destinationChainId: 42161,
      destinationExecutions: [],
      tokenRequests: [{ tokenAddress: ARB_USDC, amount: 1_000_000n }],
      options: {},
    });
    return route.intentOp;
  }
  /** As the 1.x client signs for a 7579 account: the validator-packed signature, ERC-6492-wrapped while undeployed. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function sign(a: SmartAccount, op: any, signer = a.owner, deployed = true, signedOp = op) {
    const packed = concat([OWNABLE_VALIDATOR, await signer.signTypedData(getCompactTypedData(signedOp))]);
    const signature: Hex = deployed
      ? packed
      : serializeErc6492Signature({ address: a.factory, data: a.factoryData, signature: packed });
    return { ...op, originSignatures: op.elements.map(() => signature), destinationSignature: signature };
  }
  const submit = (signed: unknown) => call(api, 'POST', '/intent-operations', { body: { signedIntentOp: signed } });

  test('a deployed account (ERC-1271) is accepted', async () => {
    const a = await account(true);
    const op = await quote(a);
    const { result } = await v1Client.submitIntent(await sign(a, op));
    expect(result).toEqual({ id: BigInt(op.nonce).toString(), status: 'PENDING' });
  });

  test('an undeployed account (ERC-6492, factory and factory data) is accepted', async () => {
    const a = await account(false);
    const op = await quote(a);
    const res = await submit(await sign(a, op, a.owner, false));
    expect(res.status).toBe(201);
    expect(await activeReservations(api, res.json.result.id)).toBe(1);
  });

  test('a wrong owner or a signature over a tampered message is rejected, nothing reserved', async () => {
    const a = await account(true);
    const op = await quote(a);
    const wrongOwner = await submit(await sign(a, op, privateKeyToAccount(generatePrivateKey())));
    expect(wrongOwner.status).toBe(400);
    expect(wrongOwner.json.message).toBe('Invalid bundle signature');
    const tampered = await submit(
      await sign(a, op, a.owner, true, { ...op, expires: String(BigInt(op.expires) + 1n) }),
    );
    expect(tampered.status).toBe(400);
    expect(tampered.json.message).toBe('Invalid bundle signature');
    const undeployed = await account(false);
    const op2 = await quote(undeployed);
    expect((await submit(await sign(undeployed, op2, privateKeyToAccount(generatePrivateKey()), false))).status).toBe(
      400,
    );
    expect(await activeReservations(api, BigInt(op.nonce).toString())).toBe(0);
    expect(await activeReservations(api, BigInt(op2.nonce).toString())).toBe(0);
  });

  test('RPC down: 503 with retry-after, nothing reserved; accepted once the RPC is back', async () => {
    const a = await account(true);
    const op = await quote(a);
    const signed = await sign(a, op);
    const down = await withRpcDown(() => submit(signed));
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.json.message).toBe(
      'The RPC of chain 8453 is unavailable; signatures cannot be verified now, retry later',
    );
    expect(await activeReservations(api, BigInt(op.nonce).toString())).toBe(0);
    expect((await submit(signed)).status).toBe(201);
  });
});

describe('0.5.x bundle submit', () => {
  async function signedPath(a: SmartAccount, signer = a.owner) {
    const intent = {
      targetChainId: 42161,
      tokenTransfers: [{ tokenAddress: ARB_USDC, amount: 1_000_000n }],
      targetAccount: a.address,
      targetExecutions: [],
    };
    const orderPath = await v0Client.getOrderPath(intent, a.address);
    return signAsClient(orderPath, intent.targetExecutions, signer);
  }
  const post = (signedOrderBundle: unknown, initCode?: Hex) =>
    call(api, 'POST', '/legacy/bundles', {
      body: {
        bundles: [
          {
            signedOrderBundle: JSON.parse(
              JSON.stringify(signedOrderBundle, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
            ),
            initCode,
          },
        ],
      },
    });

  test('a deployed account (ERC-1271, no initCode) and an undeployed one (ERC-6492 through initCode) are accepted', async () => {
    const deployed = await account(true);
    const [r1] = await v0Client.postSignedOrderBundle([{ signedOrderBundle: await signedPath(deployed) }]);
    expect(r1.status).toBe('PENDING');
    const counterfactual = await account(false);
    const [r2] = await v0Client.postSignedOrderBundle([
      { signedOrderBundle: await signedPath(counterfactual), initCode: counterfactual.initCode },
    ]);
    expect(r2.status).toBe('PENDING');
    // Without its initCode an undeployed account has no code to ask: rejected.
    const again = await account(false);
    await expect(v0Client.postSignedOrderBundle([{ signedOrderBundle: await signedPath(again) }])).rejects.toThrow(
      'Invalid bundle signature',
    );
  });

  test('a wrong owner or a signature over a tampered message is rejected, nothing reserved', async () => {
    const a = await account(false);
    const foreign = await signedPath(a, privateKeyToAccount(generatePrivateKey()));
    await expect(
      v0Client.postSignedOrderBundle([{ signedOrderBundle: foreign, initCode: a.initCode }]),
    ).rejects.toThrow('Invalid bundle signature');
    // The genuine bundle, with the signature the owner made over another (tampered) bundle.
    const genuine = await signedPath(a);
    const other = await signedPath(a);
    const res = await post(
      { ...genuine, originSignatures: other.originSignatures, targetSignature: other.targetSignature },
      a.initCode,
    );
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([{ message: 'Invalid bundle signature' }]);
    for (const b of [foreign, genuine]) expect(await activeReservations(api, BigInt(b.nonce).toString())).toBe(0);
  });

  test('RPC down: 503 with retry-after, nothing reserved; no RPC: 400; accepted once the RPC is back', async () => {
    const a = await account(false);
    const signed = await signedPath(a);
    const down = await withRpcDown(() => post(signed, a.initCode));
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.json.errors[0].message).toMatch(/^The RPC of chain 8453 is unavailable/);
    expect(await activeReservations(api, BigInt(signed.nonce).toString())).toBe(0);
    // No RPC configured for the chain at all: the clear 400 naming the variable.
    delete process.env.RPC_URL_8453;
    const unconfigured = await post(signed, a.initCode).finally(() => (process.env.RPC_URL_8453 = chain.url));
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.json.errors[0].message).toBe(
      'Smart account signatures are verified on chain and this deployment cannot verify them on chain 8453',
    );
    expect((await post(signed, a.initCode)).json.bundleResults[0].status).toBe('PENDING');
  });
});

describe('22.7 deposit processor: a smart-account owner while the RPC is down', () => {
  const baseUsdc = { chain: 'eip155:8453', token: BASE_USDC };
  /** The owner's ERC-1271 signature (validator-packed, as the account checks it) over `typedData`. */
  const sign1271 = async (a: SmartAccount, typedData: unknown) =>
    concat([OWNABLE_VALIDATOR, await a.owner.signTypedData(typedData as Parameters<typeof a.owner.signTypedData>[0])]);
  const sessions = async (a: SmartAccount, address: string, chainId: number) => {
    const hashesAndChainIds = [{ chainId, sessionDigest: sessionDigest(chainId) }];
    return {
      hashesAndChainIds,
      signature: await sign1271(a, sessionTypedData(address, 8453, { hashesAndChainIds }, await projectSigner(api))),
    };
  };
  const expect503 = (res: Awaited<ReturnType<typeof call>>) => {
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5']);
    expect(res.json).toEqual({
      error: expect.stringMatching(/^The RPC of chain 8453 is unavailable/),
      code: 'SERVICE_UNAVAILABLE',
      traceId: expect.any(String),
    });
  };

  test('22.7 /setup with session details: 503 + Retry-After, nothing registered; accepted once the RPC is back', async () => {
    const a = smartAccount(chain, privateKeyToAccount(generatePrivateKey()), BigInt(++seq));
    await deploy(chain, a);
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const body = {
      account: {
        address,
        owner: a.address,
        ownerType: 'smartAccount',
        target: baseUsdc,
        sessionDetails: await sessions(a, address, 8453),
      },
    };
    expect503(await withRpcDown(() => call(api, 'POST', `${DP}/setup`, { body })));
    expect((await call(api, 'GET', `${DP}/account/${address}`)).status).toBe(404);
    expect((await call(api, 'POST', `${DP}/setup`, { body })).status).toBe(201);
  });

  test('22.7 /account/{address}/session and /safe/withdraw: 503 + Retry-After, nothing recorded', async () => {
    const a = smartAccount(chain, privateKeyToAccount(generatePrivateKey()), BigInt(++seq));
    await deploy(chain, a);
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const signer = await projectSigner(api);
    const registered = await call(api, 'POST', `${DP}/register-managed`, {
      body: {
        account: { address, owner: a.address, ownerType: 'smartAccount', sessionSigner: signer, target: baseUsdc },
      },
    });
    expect(registered.status).toBe(201);

    const session = await withRpcDown(async () =>
      call(api, 'POST', `${DP}/account/${address}/session`, {
        body: { sessionDetails: await sessions(a, address, 42161) },
      }),
    );
    expect503(session);

    const request = {
      account: address,
      token: BASE_USDC,
      amount: '1000',
      recipient: a.address,
      nonce: '1',
      deadline: String(Math.floor(Date.now() / 1000) + 600),
    };
    const signature = await sign1271(a, withdrawTypedData(request, 8453, signer));
    expect503(
      await withRpcDown(() =>
        call(api, 'POST', `${DP}/safe/withdraw`, { body: { ...request, chain: 'eip155:8453', signature } }),
      ),
    );
    expect(await api.db.query('SELECT 1 FROM deposit_withdrawals WHERE account = $1', [address.toLowerCase()])).toEqual(
      [],
    );
  });
});
