import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { projectRoot, waitFor } from '../../src/dev/processes';
import { depositWorkflowType } from '../../workflows/contracts/deposit';
import { intentWorkflowType } from '../../workflows/contracts/intent-lifecycle';
import { ARB_USDC, TX } from '../support/fixtures';
import { Api, call, fundedAccount, ingest, startApi } from '../support/harness';
import { DP, depositEvents, fillAndClaim, registerManaged } from '../support/deposits';
import { submitOwnIntent } from '../support/intents';
import { newProject, subscribe, type Project } from '../support/projects';
import { suiteReceivers } from '../support/receiver';

/**
 * Runs only on the cluster `npm run test:cluster` starts (jest.config.js leaves test/cluster out otherwise): it kills
 * Temporal's own processes through temporal/start-cluster.sh, found by TEMPORAL_CLUSTER_DIR.
 */
const clusterDir = process.env.TEMPORAL_CLUSTER_DIR!;
const pidOf = (service: string) => Number(fs.readFileSync(path.join(clusterDir, 'run', `${service}.pid`), 'utf8'));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const cluster = (action: 'kill' | 'restart', service: string) =>
  promisify(execFile)(path.join(projectRoot, 'temporal/start-cluster.sh'), [action, service], {
    env: { ...process.env, TEMPORAL_CLUSTER_DIR: clusterDir },
  });

let api: Api;
let p: Project;
beforeAll(async () => {
  api = await startApi();
  p = await newProject(api, 'chaos');
});
afterAll(() => api.close());
const receiver = suiteReceivers();

let tx = 7000;
const intents: string[] = [];
const depositTxs: string[] = [];
const testEvents: string[] = [];

const fundedIntent = async () => {
  intents.push(await submitOwnIntent(p, await fundedAccount(api)));
};
const deposit = async () => {
  const { address } = await registerManaged(p, { chain: 'eip155:42161', token: ARB_USDC });
  const txHash = TX(tx++);
  const sender = privateKeyToAccount(generatePrivateKey()).address;
  const res = await ingest(
    api,
    depositEvents({ amount: '5000000', balance: '5000000', account: address, sender, txHash }),
  );
  expect(res.status).toBe(200);
  depositTxs.push(txHash);
};
const testWebhook = async () => {
  const res = await call(p, 'POST', `${DP}/webhooks/test`, { body: { type: 'deposit-received' } });
  expect(res.status).toBe(200);
  testEvents.push(res.json.eventId);
};
const settled = new Set<string>();
/** Reports an intent's fill and claim, once. */
const settle = async (intentId: string) => {
  if (settled.has(intentId)) return;
  settled.add(intentId);
  const res = await ingest(
    api,
    fillAndClaim(intentId, { chainId: 42161, txHash: TX(tx++) }, { chainId: 8453, txHash: TX(tx++) }),
  );
  expect(res.status).toBe(200);
};
const byTx = async (txHash: string) => (await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits[0];
const intentStatus = async (id: string) => (await call(p, 'GET', `/intent-operation/${id}`)).json.status;

test('kill -9 of a history, a matching and the frontend process, each restarted, with intents, deposits and webhooks in flight: everything completes, each webhook once per endpoint, nothing reserved twice, visibility answers', async () => {
  // The second endpoint fails each first attempt: its deliveries go through Temporal's retry workflows, across the kills.
  const [a, b] = [await receiver(), await receiver((_d, nth) => (nth === 1 ? 500 : 200))];
  await subscribe(p, a);
  await subscribe(p, b);

  for (const service of ['history', 'matching', 'frontend']) {
    // In flight at the kill: lifecycles just started or waiting for their events, deposits just reported, webhooks due.
    await fundedIntent();
    await fundedIntent();
    await deposit();
    await deposit();
    await testWebhook();
    await testWebhook();

    const pid = pidOf(service);
    await cluster('kill', service);
    expect(alive(pid)).toBe(false);
    // While it is down: the last round's intents and the bridging deposits' intents settle, and more webhooks are due.
    for (const id of intents.slice(0, -2)) await settle(id);
    for (const txHash of depositTxs) {
      const intentId = (await byTx(txHash))?.intentId as string | undefined;
      if (intentId) await settle(intentId);
    }
    await testWebhook();
    await cluster('restart', service);
    expect(pidOf(service)).not.toBe(pid);
  }

  for (const id of intents) await settle(id);
  for (const id of intents)
    await waitFor(`intent ${id}`, async () => (await intentStatus(id)) === 'COMPLETED', 120_000);
  // A deposit whose bridge outlived its timeout across a kill (6 s in tests) bridges again with a new intent: each
  // intent it starts is settled as the indexer would report it.
  const deposits = [];
  for (const txHash of depositTxs) {
    let last: unknown;
    await waitFor(
      `deposit ${txHash} completed`,
      async () => {
        const d = (last = await byTx(txHash));
        if (d?.intentId) await settle(d.intentId);
        return d?.stage === 'completed';
      },
      180_000,
    ).catch((e: Error) => {
      // Where it stopped, for whoever reads the failure.
      throw new Error(`${e.message}; last seen: ${JSON.stringify(last)}`);
    });
    deposits.push(await byTx(txHash));
  }

  // Every webhook once per endpoint: both receivers accept each webhook-id, and answer 200 to it once.
  const depositHooks = (r: typeof a, id: string) =>
    [...r.accepted.values()].filter((d) => d.json.data?.depositId === id);
  for (const d of deposits)
    await waitFor(
      `deposit ${d.id} webhooks`,
      async () =>
        [a, b].every((r) =>
          ['deposit-received', 'bridge-started', 'bridge-complete'].every((type) =>
            depositHooks(r, d.id).some((h) => h.json.type === type),
          ),
        ),
      60_000,
    );
  await waitFor(
    'test webhooks',
    async () => testEvents.every((id) => a.accepted.has(id) && b.accepted.has(id)),
    60_000,
  );
  const ids = (r: typeof a) => JSON.stringify([...r.accepted.keys()].sort());
  await waitFor('both endpoints sent the same webhooks', async () => ids(a) === ids(b), 30_000);
  for (const r of [a, b]) {
    for (const id of r.accepted.keys()) {
      expect(r.forId(id).filter((d) => d.answer === 200)).toHaveLength(1);
      if (r === b) expect(r.forId(id)[0].answer).toBe(500);
    }
    for (const d of deposits) {
      // Each step once (its own webhook-id): received and complete once, and a bridge started again only after the
      // one before failed. `deposit-delayed` and `bridge-delayed` are the steps timing decides, across a kill.
      const count = (type: string) => depositHooks(r, d.id).filter((h) => h.json.type === type).length;
      expect([count('deposit-received'), count('bridge-complete')]).toEqual([1, 1]);
      expect(count('bridge-started')).toBe(count('bridge-failed') + 1);
    }
  }
  for (const id of a.accepted.keys()) {
    const event = (await call(p, 'GET', `${DP}/webhooks/events/${id}`)).json;
    expect(event.deliveries.map((d: { status: string }) => d.status)).toEqual(['delivered', 'delivered']);
  }

  // Nothing reserved twice: each intent, the deposits' included, holds one reservation per key at most, ever.
  const owners = [...intents, ...deposits.map((d) => d.intentId as string)];
  expect(new Set(owners).size).toBe(intents.length + deposits.length);
  const twice = await api.db.query(
    `SELECT owner_id, count(*) AS n FROM reservations WHERE owner_kind = 'intent' AND owner_id = ANY($1)
       GROUP BY owner_id, account, chain_id, token, lock_tag HAVING count(*) > 1`,
    [owners],
  );
  expect(twice).toEqual([]);
  const reserved = await api.db.query(
    `SELECT DISTINCT owner_id FROM reservations WHERE owner_kind = 'intent' AND owner_id = ANY($1)`,
    [owners],
  );
  expect(reserved).toHaveLength(owners.length);

  // The visibility queries operators use (docs/intents.md), on the PostgreSQL visibility store after the kills.
  const listed = async (query: string) => {
    const ids: string[] = [];
    for await (const wf of api.temporal.workflow.list({ query })) ids.push(wf.workflowId);
    return ids.sort();
  };
  const intentIds = owners.map((id) => `intent-${id}`).sort();
  await waitFor(
    'completed intents listed',
    async () =>
      JSON.stringify(
        await listed(
          `WorkflowType = '${intentWorkflowType}' AND Project = '${p.projectId}' AND IntentStatus = 'COMPLETED'`,
        ),
      ) === JSON.stringify(intentIds),
    30_000,
  );
  expect(await listed(`IntentStatus = 'PENDING' AND Project = '${p.projectId}'`)).toEqual([]);
  const { count } = await api.temporal.workflow.count(
    `WorkflowType = '${depositWorkflowType}' AND Project = '${p.projectId}' AND Chains = '42161'`,
  );
  expect(count).toBe(deposits.length);
}, 600_000);
