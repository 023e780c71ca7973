import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { waitFor } from '../../src/dev/processes';
import { ARB_USDC, BASE_USDC, TX, walletSnapshot } from '../support/fixtures';
import { Api, call, ingest, killWorkers, startApi, startWorker } from '../support/harness';
import { newProject, subscribe } from '../support/projects';
import { Receiver } from '../support/receiver';
import { DP, depositEvents, fillAndClaim, registerManaged } from '../support/deposits';

let api: Api;
let receiver: Receiver;
beforeAll(async () => {
  // It kills and restarts workers: its own, never the lane's the other suites run on.
  api = await startApi({ ownDatabase: true });
  await startWorker(api.env);
  receiver = await new Receiver([]).start();
});
afterAll(async () => {
  await receiver.close();
  await api.close();
});

const sender = () => privateKeyToAccount(generatePrivateKey()).address;

test('deposits in flight reach their terminal state after the worker is killed and replaced, each webhook once per webhook-id', async () => {
  const p = await newProject(api, 'deposit-durability');
  await subscribe(p, receiver);
  const cross = { chain: 'eip155:42161', token: ARB_USDC };
  const [bridged, waiting, unsupported, sameChain] = await Promise.all([
    registerManaged(p, cross),
    registerManaged(p, cross),
    registerManaged(p, cross),
    registerManaged(p, { chain: 'eip155:8453', token: BASE_USDC }),
  ]);
  const byTx = async (txHash: string) => (await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits[0];
  const idOf = async (txHash: string) => {
    await waitFor(`deposit ${txHash}`, async () => !!(await byTx(txHash)), 10_000);
    return (await byTx(txHash)).id as string;
  };
  const hooks = (id: string) => [...receiver.accepted.values()].filter((d) => d.json.data.depositId === id);

  // One deposit mid-bridge and one waiting for its funds when the worker dies.
  const t = { bridged: TX(5001), waiting: TX(5002), unsupported: TX(5003), sameChain: TX(5004) };
  await ingest(
    api,
    depositEvents({
      amount: '5000000',
      balance: '5000000',
      account: bridged.address,
      sender: sender(),
      txHash: t.bridged,
    }),
  );
  await ingest(
    api,
    depositEvents({ amount: '5000000', account: waiting.address, sender: sender(), txHash: t.waiting }),
  );
  const bridgedId = await idOf(t.bridged);
  await waitFor('bridge-started', async () => (await byTx(t.bridged)).stage === 'bridging', 20_000);
  const intentId = (await byTx(t.bridged)).intentId as string;
  const waitingId = await idOf(t.waiting);
  await waitFor('deposit-delayed', async () => hooks(waitingId).some((d) => d.json.type === 'deposit-delayed'), 20_000);

  killWorkers(api.env);
  // While no worker runs: the bridge settles, the waiting deposit's funds show, and two more deposits arrive.
  await ingest(api, fillAndClaim(intentId, { chainId: 42161, txHash: TX(5101) }, { chainId: 8453, txHash: TX(5102) }));
  await ingest(api, [walletSnapshot(waiting.address, '5000000', { blockNumber: '100' })]);
  await ingest(
    api,
    depositEvents({
      chainId: 8453,
      token: '0x2222222222222222222222222222222222222222',
      amount: '1',
      account: unsupported.address,
      sender: sender(),
      txHash: t.unsupported,
    }),
  );
  await ingest(
    api,
    depositEvents({ amount: '2000000', account: sameChain.address, sender: sender(), txHash: t.sameChain }),
  );
  await new Promise((r) => setTimeout(r, 2000));
  expect((await byTx(t.bridged)).stage).toBe('bridging');
  await startWorker(api.env);

  await waitFor('the waiting deposit bridges', async () => (await byTx(t.waiting)).stage === 'bridging', 40_000);
  const waitingIntent = (await byTx(t.waiting)).intentId as string;
  await ingest(
    api,
    fillAndClaim(waitingIntent, { chainId: 42161, txHash: TX(5103) }, { chainId: 8453, txHash: TX(5104) }),
  );

  const expected: Record<string, { stage: string; types: string[] }> = {
    [t.bridged]: { stage: 'completed', types: ['deposit-received', 'bridge-started', 'bridge-complete'] },
    [t.waiting]: {
      stage: 'completed',
      types: ['deposit-received', 'deposit-delayed', 'bridge-started', 'bridge-complete'],
    },
    [t.unsupported]: { stage: 'rejected', types: ['deposit-received', 'deposit-rejected'] },
    [t.sameChain]: { stage: 'completed', types: ['deposit-received', 'bridge-complete'] },
  };
  for (const [txHash, want] of Object.entries(expected)) {
    const id = await idOf(txHash);
    await waitFor(`${txHash} ${want.stage}`, async () => (await byTx(txHash)).stage === want.stage, 40_000);
    await waitFor(`${txHash} webhooks`, async () => hooks(id).length >= want.types.length, 30_000);
    // One webhook-id per lifecycle step: the types accepted are exactly the steps, none twice. `bridge-delayed` is
    // the one step timing decides: a bridge that outlives DEPOSIT_BRIDGE_EXPECTED_SECONDS (3 s here) across the
    // kill, as it may on a loaded machine, rightly reports it, once.
    const types = hooks(id).map((d) => d.json.type);
    expect(new Set(types).size).toBe(types.length);
    expect(types.filter((type) => type !== 'bridge-delayed').sort()).toEqual([...want.types].sort());
    for (const d of hooks(id)) expect(d.verifiedWith).toHaveLength(1);
  }
  expect((await byTx(t.bridged)).destinationTxHash).toBe(TX(5101));
  const events = await call(p, 'GET', `${DP}/webhooks/events?depositId=${bridgedId}`);
  const statuses = events.json.events.map((e: { status: string }) => e.status);
  expect(statuses.length).toBeGreaterThanOrEqual(3);
  expect(statuses.every((status: string) => status === 'delivered')).toBe(true);
}, 150_000);
