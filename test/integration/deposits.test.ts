import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { waitFor } from '../../src/dev/processes';
import { Api, call, ingest, startApi } from '../support/harness';
import { ARB_USDC, BASE_USDC, TX } from '../support/fixtures';
import { newProject, subscribe, type Project } from '../support/projects';
import { Receiver } from '../support/receiver';
import { DP, depositEvents, fillAndClaim, intentFailure, registerManaged } from '../support/deposits';

let api: Api;
const receivers: Receiver[] = [];
let tx = 1000;
const nextTx = () => TX(tx++);

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await api.close();
});

/** A project with a webhook receiver that verifies every signature. */
async function subscribed(): Promise<{ p: Project; r: Receiver }> {
  const p = await newProject(api, 'deposits');
  const r = await new Receiver([]).start();
  receivers.push(r);
  await subscribe(p, r);
  return { p, r };
}

/** The deposit's webhooks as the receiver accepted them (each webhook-id once), in the order they were sent. */
const hooks = (r: Receiver, depositId: string) =>
  [...r.accepted.values()].filter((d) => d.json.data.depositId === depositId).sort((a, b) => a.json.timestamp.localeCompare(b.json.timestamp) || 0);
const types = (r: Receiver, depositId: string) => hooks(r, depositId).map((d) => d.json.type);

async function until(r: Receiver, depositId: string, type: string, count = 1, ms = 30_000) {
  await waitFor(`${type} ×${count} of deposit ${depositId}`, async () => types(r, depositId).filter((t) => t === type).length >= count, ms);
  return hooks(r, depositId).filter((d) => d.json.type === type)[count - 1].json.data;
}

async function byTx(p: Project, txHash: string) {
  const res = await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`);
  expect(res.status).toBe(200);
  return res.json.deposits;
}

async function depositIdOf(p: Project, txHash: string): Promise<string> {
  let id = '';
  await waitFor(`deposit of ${txHash}`, async () => !!(id = (await byTx(p, txHash))[0]?.id), 10_000);
  return id;
}

const sender = () => privateKeyToAccount(generatePrivateKey()).address;
const baseToArb = { chain: 'eip155:42161', token: ARB_USDC };

describe('a deposit end to end', () => {
  test('managed account → deposit on Base → received, bridge-started (a visible intent) → fill and claim → bridge-complete', async () => {
    const { p, r } = await subscribed();
    const { address } = await registerManaged(p, baseToArb);
    const txHash = nextTx();
    const from = sender();
    const ingested = await ingest(api, depositEvents({ chainId: 8453, token: BASE_USDC, amount: '5000000', balance: '5000000', account: address, sender: from, txHash }));
    expect(ingested.status).toBe(200);
    const id = await depositIdOf(p, txHash);

    const received = await until(r, id, 'deposit-received');
    expect(received).toEqual({ depositId: id, account: address.toLowerCase(), chain: 'eip155:8453', token: BASE_USDC.toLowerCase(), amount: '5000000', transactionHash: txHash, sender: from.toLowerCase() });
    const started = await until(r, id, 'bridge-started');
    expect(started).toMatchObject({
      depositId: id, attempt: 1, settlementLayer: expect.any(String),
      source: { chain: 'eip155:8453', asset: BASE_USDC.toLowerCase(), amount: '5000000' },
      destination: { chain: 'eip155:42161', asset: ARB_USDC.toLowerCase() },
    });
    expect(BigInt(started.destination.amount)).toBeLessThan(5_000_000n);
    const intent = await call(p, 'GET', `/intent-operation/${started.intentId}`);
    expect(intent.status).toBe(200);
    expect(intent.json).toMatchObject({ status: 'PENDING', destinationChainId: 42161, userAddress: address });
    const [bridging] = await byTx(p, txHash);
    expect(bridging).toMatchObject({
      id, chain: 'eip155:8453', txHash, token: BASE_USDC, amount: '5000000', sender: from, account: address, targetChain: 'eip155:42161', targetToken: ARB_USDC,
      status: 'processing', stage: 'bridging', intentId: started.intentId, sourceAmount: '5000000', destinationAmount: started.destination.amount,
      sourceTxHash: null, destinationTxHash: null, errorCode: null, completedAt: null,
    });

    const fillTx = nextTx();
    const claimTx = nextTx();
    expect((await ingest(api, fillAndClaim(started.intentId, { chainId: 42161, txHash: fillTx }, { chainId: 8453, txHash: claimTx }))).status).toBe(200);
    const complete = await until(r, id, 'bridge-complete');
    expect(complete).toMatchObject({
      depositId: id, intentId: started.intentId,
      source: { transactionHash: claimTx, chain: 'eip155:8453', amount: '5000000' },
      destination: { transactionHash: fillTx, chain: 'eip155:42161', amount: started.destination.amount },
      deposit: { transactionHash: txHash, chain: 'eip155:8453', amount: '5000000', sender: from.toLowerCase() },
    });
    const [done] = await byTx(p, txHash);
    expect(done).toMatchObject({ status: 'completed', stage: 'completed', sourceTxHash: claimTx, destinationTxHash: fillTx, completedAt: expect.any(String) });
    expect(types(r, id)).toEqual(['deposit-received', 'bridge-started', 'bridge-complete']);
    for (const d of hooks(r, id)) expect(d.verifiedWith).toHaveLength(1);
    const events = await call(p, 'GET', `${DP}/webhooks/events?depositId=${id}`);
    expect(events.json.events.map((e: { type: string }) => e.type)).toEqual(['bridge-complete', 'bridge-started', 'deposit-received']);
  });
});
