import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ARB_USDC, BASE_USDC, blockAt, getCompactTypedData, lockedSnapshot, TX } from '../support/fixtures';
import { Api, call, fundLocked, ingest, until } from '../support/harness';
import { activeReservations, reservedFor } from '../support/reservations';
import { deploy, LocalChain, OWNABLE_VALIDATOR, SmartAccount, smartAccount } from '../support/chain';
import { signAsClient, signBundle, startLegacyHost, stopLegacyHost, v0 } from '../support/legacy-client';
import { entryPoint07Address, getUserOperationHash } from 'viem/account-abstraction';
import { concat } from 'viem';

let api: Api;
let chain: LocalChain;
let client: any; // eslint-disable-line @typescript-eslint/no-explicit-any
const BEEF = '0x000000000000000000000000000000000000bEEF';

beforeAll(async () => ({ api, chain, client } = await startLegacyHost()));
afterAll(() => stopLegacyHost({ api, chain }));

async function fundedAccount(locked: string, deployed = false): Promise<SmartAccount> {
  const account = smartAccount(chain, privateKeyToAccount(generatePrivateKey()));
  if (deployed) await deploy(chain, account);
  await fundLocked(api, account.address, locked);
  return account;
}

const metaIntent = (
  account: SmartAccount,
  amount: bigint,
  targetExecutions = [{ to: BEEF, value: 0n, data: '0x1234' }],
) => ({
  targetChainId: 42161,
  tokenTransfers: [{ tokenAddress: ARB_USDC, amount }],
  targetAccount: account.address,
  targetExecutions,
});

/** path → sign as the client does → submit, with the initCode the client sends (counterfactual accounts: 6492). */
async function submitBundle(account: SmartAccount, amount = 1_000_000n) {
  const intent = metaIntent(account, amount);
  const orderPath = await client.getOrderPath(intent, account.address);
  const signedOrderBundle = await signAsClient(orderPath, intent.targetExecutions, account.owner);
  const [result] = await client.postSignedOrderBundle([{ signedOrderBundle, initCode: account.initCode }]);
  return { result, orderPath, signedOrderBundle };
}

/** The published client's status of the bundle, once it is one of `statuses`. */
const clientStatus = (bundleId: bigint, statuses: string[]) =>
  until(`bundle ${bundleId} ${statuses}`, async () => {
    const status = await client.getBundleStatus(bundleId);
    return statuses.includes(status.status) ? status : undefined;
  });

const submitted: bigint[] = [];

const ACCOUNT_PLACEHOLDER = '0x4444444444444444444444444444444444444444';

describe('the published 0.5.4 client, unchanged, against /legacy', () => {
  test('max amount, cost (fulfilled and shortfall), path, sign, submit → PENDING; fill and claim → COMPLETED', async () => {
    const account = await fundedAccount('5000000');
    const max = await client.getMaxTokenAmount(account.address, 42161, ARB_USDC);
    expect(max).toBeGreaterThan(0n);
    expect(max).toBeLessThan(5_000_000n); // the fees come out of the balance

    const cost = await client.getIntentCost(
      { targetChainId: 42161, tokenTransfers: [{ tokenAddress: ARB_USDC, amount: 1_000_000n }] },
      account.address,
    );
    expect(cost.hasFulfilledAll).toBe(true);
    expect(cost.tokensSpent[8453][BASE_USDC]).toBeGreaterThan(1_000_000n);
    expect(cost.tokensReceived).toEqual([
      {
        tokenAddress: ARB_USDC,
        hasFulfilled: true,
        amountSpent: expect.any(BigInt),
        targetAmount: 1_000_000n,
        fee: expect.any(BigInt),
      },
    ]);
    const shortfall = await client.getIntentCost(
      { targetChainId: 42161, tokenTransfers: [{ tokenAddress: ARB_USDC, amount: 50_000_000n }] },
      account.address,
    );
    expect(shortfall).toEqual({
      hasFulfilledAll: false,
      tokenShortfall: [
        {
          tokenAddress: ARB_USDC,
          targetAmount: 50_000_000n,
          amountSpent: 5_000_000n,
          fee: 0n,
          tokenSymbol: 'USDC',
          tokenDecimals: 6,
        },
      ],
      totalTokenShortfallInUSD: 45n,
    });
    expect(await client.getMaxTokenAmount(privateKeyToAccount(generatePrivateKey()).address, 42161, ARB_USDC)).toBe(0n);

    const { result, orderPath, signedOrderBundle } = await submitBundle(account);
    const bundle = orderPath[0].orderBundle;
    expect(bundle.segments).toHaveLength(1);
    expect(bundle.segments[0]).toMatchObject({
      chainId: 8453n,
      witness: { targetChain: 42161n, depositId: bundle.nonce, recipient: account.address },
    });
    expect(orderPath[0].injectedExecutions).toEqual([]);
    expect(orderPath[0].intentCost.tokensReceived[0].targetAmount).toBe(1_000_000n);
    expect(result).toEqual({ bundleId: bundle.nonce, status: 'PENDING' });
    submitted.push(result.bundleId);
    // Idempotent: the same signed bundle again is the same bundle, reserved once.
    expect(await client.postSignedOrderBundle([{ signedOrderBundle, initCode: account.initCode }])).toEqual([result]);
    expect(await activeReservations(api, result.bundleId, 'bundle')).toBe(1);

    const pending = await client.getBundleStatus(result.bundleId);
    expect(pending).toEqual({
      status: 'PENDING',
      claims: [{ chainId: 8453, status: 'PENDING', depositId: result.bundleId }],
    });
    const nonce = result.bundleId.toString();
    const pre = await call(api, 'POST', `/legacy/bundles/${nonce}/events`, {
      body: { type: 'FillPreconfirmation', chainId: 42161, txHash: TX(7) },
    });
    expect(pre).toMatchObject({ status: 201, json: { status: 'Accepted' } });
    const filledAt = Math.floor(Date.now() / 1000); // mined after the quote
    // A bundle's fills and claims are held to its quote as an intent's are: a fill on an origin chain is refused.
    const misplaced = await ingest(api, [
      { id: `fill-8453-${nonce}`, type: 'fill', chainId: 8453, nonce, transactionHash: TX(8), timestamp: filledAt },
    ]);
    expect(misplaced.json).toMatchObject({
      applied: 0,
      refused: [{ index: 0, id: `fill-8453-${nonce}`, reason: 'fill-chain' }],
    });
    await ingest(api, [
      { id: `fill-${nonce}`, type: 'fill', chainId: 42161, nonce, transactionHash: TX(1), timestamp: filledAt },
      {
        id: `claim-${nonce}`,
        type: 'claim',
        chainId: 8453,
        nonce,
        transactionHash: TX(2),
        timestamp: filledAt + 100,
        blockNumber: '5',
      },
    ]);
    const done = await clientStatus(result.bundleId, ['COMPLETED']);
    expect(done).toEqual({
      status: 'COMPLETED',
      fillTimestamp: filledAt,
      fillTransactionHash: TX(1),
      claims: [
        {
          chainId: 8453,
          status: 'CLAIMED',
          claimTimestamp: filledAt + 100,
          claimTransactionHash: TX(2),
          depositId: result.bundleId,
        },
      ],
    });
    const [{ history }] = await api.db.query('SELECT history FROM bundles WHERE id = $1', [nonce]);
    expect(history.map((h: { status: string }) => h.status)).toEqual([
      'PENDING',
      'PRECONFIRMED',
      'FILLED',
      'COMPLETED',
    ]);
    // Settled with the first snapshot at or after the claim's block.
    await ingest(api, [lockedSnapshot(account.address, '3900000', { blockNumber: '5' })]);
    expect(await activeReservations(api, result.bundleId, 'bundle')).toBe(0);
  });

  test('21.2 a bundle not filled by its fill deadline expires; its reservation is released by a snapshot at or after `expires`', async () => {
    const account = await fundedAccount('5000000', true); // deployed: plain ERC-1271
    const window = api.services.config.intents.fillWindowSeconds;
    api.services.config.intents.fillWindowSeconds = 3; // this API's paths get a 3 s fill window
    const { result } = await submitBundle(account).finally(
      () => (api.services.config.intents.fillWindowSeconds = window),
    );
    submitted.push(result.bundleId);
    expect(await activeReservations(api, result.bundleId, 'bundle')).toBe(1);
    const expired = await clientStatus(result.bundleId, ['EXPIRED']);
    expect(expired.claims).toEqual([{ chainId: 8453, status: 'EXPIRED', depositId: result.bundleId }]);
    // Held past `expires` (INTENT_CLAIM_WINDOW_SECONDS=5 in tests) until a snapshot at or after it shows no claim.
    await api.temporal.workflow.getHandle(`bundle-${result.bundleId}`).result();
    const [{ expires }] = await api.db.query("SELECT operation->>'expires' AS expires FROM quotes WHERE nonce = $1", [
      String(result.bundleId),
    ]);
    expect(await activeReservations(api, result.bundleId, 'bundle')).toBe(1);
    await ingest(api, [
      lockedSnapshot(account.address, '5000000', {
        blockNumber: blockAt(Number(expires)),
        blockTimestamp: Number(expires),
      }),
    ]);
    expect(await activeReservations(api, result.bundleId, 'bundle')).toBe(0);
  });

  test('getPendingBundles pages through the accepted bundles', async () => {
    const seen: bigint[] = [];
    let offset = 0;
    for (;;) {
      const page = await client.getPendingBundles(1, offset);
      if (!page.pendingBundles.length) break;
      expect(page.pendingBundles).toHaveLength(1);
      expect(page.nextOffset).toBe(offset + 1);
      const [event] = page.pendingBundles;
      expect(event).toMatchObject({ type: 'PendingBundle', targetFillPayload: { chainId: 42161, value: 0n } });
      expect(event.acrossDepositEvents[0]).toMatchObject({
        depositId: event.bundleId,
        inputToken: BASE_USDC,
        outputToken: ARB_USDC,
        outputAmount: 1_000_000n,
        destinationChainId: 42161,
      });
      seen.push(event.bundleId);
      offset = page.nextOffset;
    }
    expect(seen).toEqual(submitted);
  });

  test('session path: the first segment carries the hash of the userOp sent with the bundle', async () => {
    const account = await fundedAccount('5000000', true);
    const intent = {
      targetChainId: 42161,
      tokenTransfers: [{ tokenAddress: ARB_USDC, amount: 1_000_000n }],
      targetAccount: account.address,
      userOp: v0.getEmptyUserOp(),
    };
    const orderPath = await client.getOrderPath(intent, account.address);
    const userOp = {
      sender: account.address,
      nonce: 1n,
      callData: '0x1234' as const,
      callGasLimit: 100_000n,
      verificationGasLimit: 200_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: 1_000n,
      maxPriorityFeePerGas: 10n,
      signature: '0x' as const,
    };
    const bundle = orderPath[0].orderBundle;
    bundle.segments[0].witness.userOpHash = getUserOperationHash({
      userOperation: userOp,
      chainId: 42161,
      entryPointAddress: entryPoint07Address,
      entryPointVersion: '0.7',
    });
    const signedOrderBundle = await signBundle(bundle, account.owner);
    await expect(
      client.postSignedOrderBundle([{ signedOrderBundle, userOp: { ...userOp, callData: '0x5678' } }]),
    ).rejects.toThrow('Invalid bundle signature');
    await expect(client.postSignedOrderBundle([{ signedOrderBundle }])).rejects.toThrow('Invalid bundle signature');
    const malformed = await call(api, 'POST', '/legacy/bundles', {
      body: {
        bundles: [
          {
            signedOrderBundle: JSON.parse(
              JSON.stringify(signedOrderBundle, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
            ),
            userOp: { sender: account.address },
          },
        ],
      },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.errors[0].message).toMatch(/^body\.bundles\.0\.userOp/);
    expect((await client.postSignedOrderBundle([{ signedOrderBundle, userOp }]))[0].status).toBe('PENDING');
  });
});

describe('refusals', () => {
  test('a tampered bundle or a foreign signer: Invalid bundle signature, nothing reserved', async () => {
    const account = await fundedAccount('5000000');
    const intent = metaIntent(account, 1_000_000n);
    const orderPath = await client.getOrderPath(intent, account.address);
    const nonce = orderPath[0].orderBundle.nonce;
    const signed = await signAsClient(orderPath, intent.targetExecutions, account.owner);
    // Changed after signing, or changed and signed: either way not the bundle we served.
    const moreOut = {
      ...signed,
      segments: [
        {
          ...signed.segments[0],
          witness: {
            ...signed.segments[0].witness,
            tokenOut: [[signed.segments[0].witness.tokenOut[0][0], 2_000_000n]],
          },
        },
      ],
    };
    const error = await client
      .postSignedOrderBundle([{ signedOrderBundle: moreOut, initCode: account.initCode }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(v0.OrchestratorError);
    expect(error.message).toBe('Invalid bundle signature');
    const reSigned = await signAsClient(
      [{ ...orderPath[0], orderBundle: moreOut }],
      intent.targetExecutions,
      account.owner,
    );
    await expect(
      client.postSignedOrderBundle([{ signedOrderBundle: reSigned, initCode: account.initCode }]),
    ).rejects.toThrow('Invalid bundle signature');
    const foreign = await signAsClient(orderPath, intent.targetExecutions, privateKeyToAccount(generatePrivateKey()));
    await expect(
      client.postSignedOrderBundle([{ signedOrderBundle: foreign, initCode: account.initCode }]),
    ).rejects.toThrow('Invalid bundle signature');
    expect(await activeReservations(api, nonce, 'bundle')).toBe(0);
    // Then the genuine one goes through.
    expect(
      (await client.postSignedOrderBundle([{ signedOrderBundle: signed, initCode: account.initCode }]))[0].status,
    ).toBe('PENDING');
  });

  test('a path is spent once: accepted as a bundle, its quote cannot also be submitted as an alps intent', async () => {
    const account = await fundedAccount('5000000', true);
    const { result } = await submitBundle(account);
    const [{ operation }] = await api.db.query('SELECT operation FROM quotes WHERE nonce = $1', [
      result.bundleId.toString(),
    ]);
    const signature = concat([OWNABLE_VALIDATOR, await account.owner.signTypedData(getCompactTypedData(operation))]);
    const res = await call(api, 'POST', '/intent-operations', {
      body: { signedIntentOp: { ...operation, originSignatures: [signature], destinationSignature: signature } },
    });
    expect(res.status).toBe(404);
    expect(res.json.message).toBe('Quote not found; request a new route');
    expect(await activeReservations(api, result.bundleId, 'bundle')).toBe(1);
    expect(
      Number(
        (
          await api.db.query("SELECT count(*) AS n FROM reservations WHERE owner_kind = 'intent' AND owner_id = $1", [
            result.bundleId.toString(),
          ])
        )[0].n,
      ),
    ).toBe(0);
  });

  test('an unknown bundle id: 404 with the errors array the client reads', async () => {
    const error = await client.getBundleStatus(123456789n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(v0.OrchestratorError);
    expect(error).toMatchObject({ message: 'Bundle 123456789 not found', errorType: 'Not Found' });
    const res = await call(api, 'GET', '/legacy/bundles/123456789');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      message: 'Bundle 123456789 not found',
      errors: [{ message: 'Bundle 123456789 not found', context: { bundleId: '123456789' } }],
      traceId: expect.any(String),
    });
    expect(
      (
        await call(api, 'POST', '/legacy/bundles/123456789/events', {
          body: { type: 'FillPreconfirmation', chainId: 42161, txHash: TX(1) },
        })
      ).status,
    ).toBe(404);
    expect((await call(api, 'GET', '/legacy/bundles/not-a-number')).status).toBe(400);
  });

  test('a userOp gas field beyond 128 bits is a 400, not a failure to hash it', async () => {
    const userOp = {
      sender: ACCOUNT_PLACEHOLDER,
      nonce: '0',
      callData: '0x',
      callGasLimit: (1n << 128n).toString(),
      verificationGasLimit: '1',
      preVerificationGas: '1',
      maxFeePerGas: '1',
      maxPriorityFeePerGas: '1',
      signature: '0x',
    };
    const signedOrderBundle = {
      sponsor: ACCOUNT_PLACEHOLDER,
      nonce: '1',
      expires: '1',
      segments: [],
      targetSignature: '0x',
      originSignatures: [],
    };
    const res = await call(api, 'POST', '/legacy/bundles', { body: { bundles: [{ signedOrderBundle, userOp }] } });
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { message: string }) => e.message).join(' ')).toContain('callGasLimit');
  });

  test('one balance, a bundle, an alps intent and a withdrawal: never reserved beyond it', async () => {
    const account = await fundedAccount('10000000', true);
    // Two paths of 2 USDC (about 4 with fees) each, quoted while the whole balance is free: paths reserve nothing.
    const paths = await Promise.all(
      [0, 1].map(async () => {
        const intent = metaIntent(account, 2_000_000n);
        const orderPath = await client.getOrderPath(intent, account.address);
        return signAsClient(orderPath, intent.targetExecutions, account.owner);
      }),
    );
    expect(
      (await client.postSignedOrderBundle([{ signedOrderBundle: paths[0], initCode: account.initCode }]))[0].status,
    ).toBe('PENDING');

    // The same smart account through the 1.x (alps) host: its signature is checked on chain too.
    const route = await call(api, 'POST', '/intents/route', {
      body: {
        account: { address: account.address, accountType: 'ERC7579', setupOps: [] },
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '2000000' }],
      },
    });
    expect(route.status).toBe(200);
    const op = route.json.intentOp;
    const signature = concat([OWNABLE_VALIDATOR, await account.owner.signTypedData(getCompactTypedData(op))]);
    const intent = await call(api, 'POST', '/intent-operations', {
      body: { signedIntentOp: { ...op, originSignatures: [signature], destinationSignature: signature } },
    });
    expect(intent.status).toBe(201);

    // About 2 USDC is left (the fees of the day decide how much): the second bundle, which needs as much as the first,
    // and a withdrawal of one unit more than is left are refused, nothing reserved for them.
    const left = 10_000_000n - (await reservedFor(api, account.address));
    expect(left).toBeGreaterThan(1_000_000n);
    await expect(
      client.postSignedOrderBundle([{ signedOrderBundle: paths[1], initCode: account.initCode }]),
    ).rejects.toThrow('Insufficient balance');
    expect(await activeReservations(api, paths[1].nonce, 'bundle')).toBe(0);
    const withdrawal = await call(api, 'POST', '/withdrawals', {
      body: {
        account: account.address,
        chainId: 8453,
        tokenAddress: BASE_USDC,
        amount: String(left + 1n),
        recipient: BEEF,
      },
    });
    expect(withdrawal.status).toBe(400);
    expect(withdrawal.json.message).toBe('Insufficient balance');
    // What is left can still be withdrawn, and no more.
    const small = await call(api, 'POST', '/withdrawals', {
      body: { account: account.address, chainId: 8453, tokenAddress: BASE_USDC, amount: '1000000', recipient: BEEF },
    });
    expect(small.status).toBe(200);
    expect(await reservedFor(api, account.address)).toBeLessThanOrEqual(10_000_000n);
  });
});
