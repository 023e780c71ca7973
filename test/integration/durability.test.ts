import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ARB_USDC, blockAt, claimEvent, fillEvent, getCompactTypedData, lockedSnapshot, TX } from '../support/fixtures';
import {
  Api,
  call,
  fundedAccount,
  fundLocked,
  ingest,
  killWorkers,
  startApi,
  startWorker,
  until,
} from '../support/harness';
import { LocalChain, smartAccount, startChain } from '../support/chain';
import { signAsClient, v0 } from '../support/legacy-client';

let api: Api;
let chain: LocalChain;
beforeAll(async () => {
  // It kills and restarts workers: its own, never the lane's the other suites run on.
  api = await startApi({ ownDatabase: true });
  await startWorker(api.env);
  chain = await startChain(); // legacy bundles come from smart accounts, verified on chain
  process.env.RPC_URL_8453 = chain.url;
  process.env.RPC_URL_42161 = chain.url;
});
afterAll(async () => {
  delete process.env.RPC_URL_8453;
  delete process.env.RPC_URL_42161;
  await chain.stop();
  await api.close();
});

/** A legacy bundle through the published 0.5.4 client, from a counterfactual smart account (ERC-6492). */
async function submitBundle(fillWindowSeconds?: number): Promise<string> {
  const account = smartAccount(chain, privateKeyToAccount(generatePrivateKey()));
  await fundLocked(api, account.address, '5000000');
  const client = v0.getOrchestrator(api.apiKey, `${api.url}/legacy`);
  const intent = {
    targetChainId: 42161,
    tokenTransfers: [{ tokenAddress: ARB_USDC, amount: 1_000_000n }],
    targetAccount: account.address,
    targetExecutions: [],
  };
  const window = api.services.config.intents.fillWindowSeconds;
  if (fillWindowSeconds) api.services.config.intents.fillWindowSeconds = fillWindowSeconds;
  const orderPath = await client
    .getOrderPath(intent, account.address)
    .finally(() => (api.services.config.intents.fillWindowSeconds = window));
  const [result] = await client.postSignedOrderBundle([
    { signedOrderBundle: await signAsClient(orderPath, [], account.owner), initCode: account.initCode },
  ]);
  expect(result.status).toBe('PENDING');
  return result.bundleId.toString();
}

async function submitIntent(deadlineInSeconds?: number): Promise<string> {
  const account = await fundedAccount(api);
  const route = await call(api, 'POST', '/intents/route', {
    body: {
      account: { address: account.address, accountType: 'EOA', setupOps: [] },
      destinationChainId: 42161,
      tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
      options: deadlineInSeconds ? { customDeadline: Math.floor(Date.now() / 1000) + deadlineInSeconds } : {},
    },
  });
  const op = route.json.intentOp;
  const signature = await account.signTypedData(getCompactTypedData(op));
  const res = await call(api, 'POST', '/intent-operations', {
    body: { signedIntentOp: { ...op, originSignatures: [signature], destinationSignature: signature } },
  });
  expect(res.status).toBe(201);
  return res.json.result.id;
}

/** Waits until the intent (or, at its `path`, the bundle) `id` has `status`. */
const waitForStatus = (id: string, status: string, path = `/intent-operation/${id}`) =>
  until(
    `${id} ${status}`,
    async () => ((await call(api, 'GET', path)).json.status === status ? true : undefined),
    60_000,
  );

test('intents and bundles in flight reach the right terminal state after the worker process is killed and replaced', async () => {
  const toComplete = await submitIntent();
  const toExpire = await submitIntent(4);
  const toFail = await submitIntent();
  const bundleToComplete = await submitBundle();
  const bundleToExpire = await submitBundle(4);

  killWorkers(api.env);
  // Indexer events arrive while no worker runs: recorded and answered at once, applied when a worker is back.
  const events = ingest(api, [
    fillEvent(toComplete, TX(1)),
    claimEvent(toComplete, TX(2), { timestamp: 2 }),
    {
      id: `dur-failure-${toFail}`,
      type: 'failure',
      chainId: 42161,
      nonce: toFail,
      reason: 'destination call reverted',
    },
    fillEvent(bundleToComplete, TX(3)),
    claimEvent(bundleToComplete, TX(4), { timestamp: 4 }),
  ]);
  await new Promise((r) => setTimeout(r, 5000)); // the short fill deadline passes with no worker alive
  expect((await call(api, 'GET', `/intent-operation/${toExpire}`)).json.status).toBe('PENDING');
  expect((await call(api, 'GET', `/legacy/bundles/${bundleToExpire}`)).json.status).toBe('PENDING');

  await startWorker(api.env);
  expect((await events).status).toBe(200);
  await waitForStatus(toComplete, 'COMPLETED');
  await waitForStatus(toExpire, 'EXPIRED');
  await waitForStatus(toFail, 'FAILED');
  await waitForStatus(bundleToComplete, 'COMPLETED', `/legacy/bundles/${bundleToComplete}`);
  await waitForStatus(bundleToExpire, 'EXPIRED', `/legacy/bundles/${bundleToExpire}`);
  // The completed intent's reservation goes with the first snapshot after its claim.
  const [{ account }] = await api.db.query('SELECT account FROM intents WHERE id = $1', [toComplete]);
  await ingest(api, [lockedSnapshot(account, '3900000', { blockNumber: '2' })]);
  const held = async (ids: string[]) =>
    Number(
      (
        await api.db.query('SELECT count(*) AS n FROM reservations WHERE owner_id = ANY($1) AND released_at IS NULL', [
          ids,
        ])
      )[0].n,
    );
  // The expired ones are held past their `expires` (5 s after their deadline in tests) until a snapshot of a block at
  // or after it shows no claim; the failed one stays reserved until its own `expires`, since the arbiter could still claim it.
  for (const [kind, id] of [
    ['intent', toExpire],
    ['bundle', bundleToExpire],
  ]) {
    await api.temporal.workflow.getHandle(`${kind}-${id}`).result();
    const [{ account: owner, expires }] = await api.db.query(
      `SELECT x.account, q.operation->>'expires' AS expires FROM ${kind}s x JOIN quotes q ON q.nonce = x.id WHERE x.id = $1`,
      [id],
    );
    expect(await held([id])).toBe(1);
    await ingest(api, [
      lockedSnapshot(owner, '5000000', { blockNumber: blockAt(Number(expires)), blockTimestamp: Number(expires) }),
    ]);
  }
  expect(await held([toComplete, toExpire, bundleToExpire])).toBe(0);
  expect(await held([bundleToComplete])).toBe(1); // claimed: settles with the next snapshot, as an intent does
  expect(await held([toFail])).toBe(1);
}, 120_000);
