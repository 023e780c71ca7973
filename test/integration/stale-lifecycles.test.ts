import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { waitFor } from '../../src/dev/processes';
import { createActivities } from '../../activities';
import { depositDeps } from '../../src/deposits/deps';
import type { Outbox } from '../../src/outbox/outbox';
import type { QueuedSignal } from '../../src/outbox/store';
import { loadRuntime } from '../../src/runtime';
import { ARB_USDC, BASE_USDC, claimEvent, fillEvent, TX } from '../support/fixtures';
import { Api, fundedAccount, ingest, startApi } from '../support/harness';
import { submitOwnIntent } from '../support/intents';

/**
 * A lifecycle started again for an intent whose run Temporal has purged (a dead letter retried after the retention)
 * begins at PENDING and writes what it sees: the store must refuse every write that is not a forward move of a
 * live lifecycle, and report nothing to the deposit workflows twice. The activities run here as the worker runs
 * them, with an outbox that records what they would deliver.
 */
let api: Api;
let seq = 0;
const delivered: QueuedSignal[] = [];
let acts: ReturnType<typeof createActivities>;
const warnings: object[] = [];

beforeAll(async () => {
  api = await startApi();
  const rt = loadRuntime({ ...process.env, ...api.env.env });
  const outbox = { deliver: async (signals: QueuedSignal[]) => delivered.push(...signals) } as unknown as Outbox;
  const deps = {
    db: api.db,
    config: rt.config,
    outbox,
    deposits: depositDeps(rt, api.db),
    rpc: rt.rpc,
    log: { warn: (obj: object) => warnings.push(obj) },
  };
  acts = createActivities(deps);
});
afterAll(() => api.close());

const submitted = async () => submitOwnIntent(api, await fundedAccount(api));

/** A deposit whose bridge is this intent, so reports of the intent are addressed to its workflow. */
async function bridgedBy(intentId: string): Promise<string> {
  const [{ id }] = await api.db.query(
    `WITH account AS (INSERT INTO deposit_accounts (address, project_id, owner, owner_type, managed, session_signer, target_chain_id, target_token, recipient)
                      VALUES ($2, $1, $2, 'EOA', true, $2, 42161, $5, $2))
     INSERT INTO deposits (project_id, account, chain_id, tx_hash, log_index, token, amount, sender, block_number, target_chain_id, target_token, recipient, stage, intent_id)
     VALUES ($1, $2, 8453, $3, 0, $4, 1000000, $2, 1, 42161, $5, $2, 'bridging', $6) RETURNING id::text`,
    [
      api.projectId,
      privateKeyToAccount(generatePrivateKey()).address.toLowerCase(),
      TX(900_000 + seq++),
      BASE_USDC,
      ARB_USDC,
      intentId,
    ],
  );
  return id;
}

const stored = async (id: string) =>
  (await api.db.query('SELECT status, history, fill FROM intents WHERE id = $1', [id]))[0] as {
    status: string;
    history: unknown[];
    fill: unknown;
  };
const reportsTo = (depositId: string) =>
  delivered.filter((s) => s.workflowId === `deposit-${depositId}`).map((s) => (s.payload as { status: string }).status);

test('state never goes backwards: a stale lifecycle writes nothing over a COMPLETED intent and reports nothing again', async () => {
  const id = await submitted();
  await ingest(api, [fillEvent(id, TX(1)), claimEvent(id, TX(2), { blockNumber: '7' })]);
  await waitFor('COMPLETED', async () => (await stored(id)).status === 'COMPLETED', 30_000);
  const before = await stored(id);
  const deposit = await bridgedBy(id);

  // What a lifecycle started afresh writes: its first event, its expiry at the deadline, then its release at `expires`.
  await acts.recordTransition(id, 'PRECONFIRMED', { type: 'preconfirmation', chainId: 42161 });
  await acts.recordTransition(id, 'EXPIRED');
  await acts.releaseIntent(id);
  expect(await stored(id)).toEqual(before);
  expect(reportsTo(deposit)).toEqual([]);
  expect(warnings).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ id, status: 'PRECONFIRMED' }),
      expect.objectContaining({ id, status: 'EXPIRED' }),
    ]),
  );
}, 60_000);

test('state never goes backwards: RELEASED is reported once, and nothing is written after the release', async () => {
  const id = await submitted(); // its lifecycle waits out its start delay until the fill deadline, minutes away
  const deposit = await bridgedBy(id);
  await acts.recordTransition(id, 'FAILED', { type: 'failure', chainId: 42161, reason: 'reverted' });
  await acts.recordTransition(id, 'FAILED', { type: 'failure', chainId: 42161, reason: 'reverted' }); // a repeated write
  await acts.releaseIntent(id);
  await acts.releaseIntent(id); // a stale lifecycle's release, or a repeated activity
  expect(reportsTo(deposit)).toEqual(['FAILED', 'RELEASED']);

  // A lifecycle started again after the release would expire the intent at its deadline: refused, as is a late fill.
  await acts.recordTransition(id, 'EXPIRED');
  await acts.recordTransition(id, 'FILLED', { type: 'fill', chainId: 42161, transactionHash: TX(3), timestamp: 1 });
  expect(await stored(id)).toMatchObject({ status: 'FAILED', fill: null });
  expect(reportsTo(deposit)).toEqual(['FAILED', 'RELEASED']);
}, 60_000);
