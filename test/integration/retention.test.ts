import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { funnel, funnelFromRaw, storeEvents } from '../../src/analytics/store';
import type { AcceptedEvent } from '../../src/analytics/validate';
import { foldPending } from '../../src/analytics/rollup-store';
import { releaseIntent } from '../../src/intents/transition-store';
import { createProject } from '../../src/projects/api-keys';
import { pruneScheduleId } from '../../src/retention/schedule';
import { waitFor } from '../../src/dev/processes';
import { pruneWorkflowType, type PruneResult } from '../../workflows/contracts/prune-storage';
import { ARB_USDC, BASE_USDC, claimEvent, fillEvent, TX } from '../support/fixtures';
import { Api, fundedAccount, ingest, startApi } from '../support/harness';
import { submitOwnIntent } from '../support/intents';

/**
 * The pruner as the worker runs it (the workflow its schedule starts, against the database): rows past their
 * retention go, except what an open lifecycle, a pending delivery or an unfolded report still needs, and funnel
 * reports of ranges within the retention read the same after it.
 */
let api: Api;
let seq = 0;
const uid = () => `${Date.now()}-${seq++}`;
const DAY = 86_400_000;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const submitted = async () => submitOwnIntent(api, await fundedAccount(api));

const exists = async (sql: string, params: unknown[]) =>
  (await api.db.query(`SELECT EXISTS (${sql}) AS e`, params))[0].e as boolean;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

const prune = async (): Promise<PruneResult> =>
  api.temporal.workflow.execute(pruneWorkflowType, {
    taskQueue: api.env.taskQueue,
    workflowId: `storage-prune-test-${uid()}`,
    args: [],
  });

test('storage that only grows: the worker schedules the pruner', async () => {
  const schedule = api.temporal.schedule.getHandle(pruneScheduleId(api.env.taskQueue));
  await waitFor(
    'the worker created the pruner schedule',
    () =>
      schedule.describe().then(
        () => true,
        () => false,
      ),
    60_000,
  );
  const { action, spec } = await schedule.describe();
  expect(action).toMatchObject({ type: 'startWorkflow', workflowType: pruneWorkflowType });
  expect(spec.intervals).toEqual([
    expect.objectContaining({ every: api.services.config.retention.pruneSeconds * 1000 }),
  ]);
});

test('storage that only grows: event keys are pruned once their lifecycle ended, never while it is open', async () => {
  const retention = api.services.config.retention.lifecycleEventKeysDays;
  const completed = await submitted();
  await ingest(api, [fillEvent(completed, TX(1)), claimEvent(completed, TX(2), { blockNumber: '7' })]);
  await waitFor(
    'COMPLETED',
    async () => (await api.db.query('SELECT status FROM intents WHERE id = $1', [completed]))[0].status === 'COMPLETED',
    30_000,
  );
  const open = await submitted(); // PENDING: its lifecycle waits for its fill deadline
  const released = await submitted();
  await releaseIntent(api.db, released); // ended at `expires`
  const orphan = String(7_000_000_000_000_000n + BigInt(seq++)); // a nonce no submit ever recorded
  const key = (nonce: string, type: string, at: Date) =>
    api.db.query('INSERT INTO lifecycle_event_keys (nonce, type, chain_id, created_at) VALUES ($1, $2, 42161, $3)', [
      nonce,
      type,
      at,
    ]);
  const old = daysAgo(retention + 1);
  for (const nonce of [completed, open, released, orphan]) await key(nonce, 'preconfirmation', old);
  await key(completed, 'failure', daysAgo(retention - 1)); // ended, but within the retention

  const pruned = await prune();
  expect(pruned.lifecycleEventKeys).toBeGreaterThanOrEqual(3);
  const kept = async (nonce: string, type = 'preconfirmation') =>
    exists('SELECT 1 FROM lifecycle_event_keys WHERE nonce = $1 AND type = $2', [nonce, type]);
  expect({
    completed: await kept(completed),
    open: await kept(open),
    released: await kept(released),
    orphan: await kept(orphan),
    recent: await kept(completed, 'failure'),
  }).toEqual({ completed: false, open: true, released: false, orphan: false, recent: true });
}, 90_000);

test("storage that only grows: webhook attempts of finished deliveries and settled deposits' histories are pruned, the rest kept", async () => {
  const { projectId } = await createProject(api.db, `retention-${uid()}`);
  const [{ id: endpoint }] = await api.db.query(
    "INSERT INTO webhook_endpoints (project_id, url, secret) VALUES ($1, 'https://example.com/hooks', 'whsec_x') RETURNING id",
    [projectId],
  );
  const event = async (type: string, status: string, at: Date, depositId: string | null = null): Promise<string> =>
    (
      await api.db.query(
        "INSERT INTO webhook_events (event_id, project_id, idempotency_key, type, deposit_id, payload, status, created_at) VALUES ($1, $2, $1, $3, $4, '{}', $5, $6) RETURNING seq::text",
        [`evt_${uid()}`, projectId, type, depositId, status, at],
      )
    )[0].seq;
  const eventKept = (seq: string) => exists('SELECT 1 FROM webhook_events WHERE seq = $1', [seq]);

  // Attempts: a delivered event's (old, and recent), and a delivery still retrying in its second round.
  const attemptsRetention = api.services.config.retention.webhookAttemptsDays;
  const attempt = (seq: string, round: number, attempt: number, at: Date) =>
    api.db.query(
      'INSERT INTO webhook_attempts (event_seq, endpoint_id, round, attempt, attempted_at, status_code, latency_ms) VALUES ($1, $2, $3, $4, $5, 500, 10)',
      [seq, endpoint, round, attempt, at],
    );
  const delivery = (seq: string, round: number, status: string) =>
    api.db.query(
      "INSERT INTO webhook_deliveries (event_seq, endpoint_id, round, status, workflow_id) VALUES ($1, $2, $3, $4, 'webhook-retention-test')",
      [seq, endpoint, round, status],
    );
  const old = daysAgo(attemptsRetention + 1);
  const delivered = await event('onramp-order', 'delivered', old);
  await delivery(delivered, 1, 'delivered');
  await attempt(delivered, 1, 1, old);
  await attempt(delivered, 1, 2, daysAgo(attemptsRetention - 1));
  const retrying = await event('onramp-order', 'pending', old);
  await delivery(retrying, 2, 'pending');
  await attempt(retrying, 1, 1, old);
  await attempt(retrying, 2, 1, old);

  // Deposit histories: a completed deposit's, one still bridging, and a refunded one with an event still delivering.
  const depositRetention = api.services.config.retention.depositEventsDays;
  const account = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
  await api.db.query(
    `INSERT INTO deposit_accounts (address, project_id, owner, owner_type, managed, session_signer, target_chain_id, target_token, recipient)
     VALUES ($1, $2, $1, 'EOA', true, $1, 42161, $3, $1)`,
    [account, projectId, ARB_USDC],
  );
  const deposit = async (stage: string): Promise<string> =>
    (
      await api.db.query(
        `INSERT INTO deposits (project_id, account, chain_id, tx_hash, log_index, token, amount, sender, block_number, target_chain_id, target_token, recipient, stage)
     VALUES ($1, $2, 8453, $3, 0, $4, 1000000, $2, 1, 42161, $5, $2, $6) RETURNING id::text`,
        [projectId, account, TX(800_000 + seq++), BASE_USDC, ARB_USDC, stage],
      )
    )[0].id;
  const long = daysAgo(depositRetention + 1);
  const completed = await deposit('completed');
  const completedEvents = [
    await event('deposit-received', 'delivered', long, completed),
    await event('bridge-started', 'failed', long, completed),
    await event('bridge-complete', 'delivered', long, completed),
  ];
  const bridging = await deposit('bridging');
  const bridgingEvents = [
    await event('deposit-received', 'delivered', long, bridging),
    await event('bridge-started', 'delivered', long, bridging),
  ];
  const refunded = await deposit('refunded');
  const refundedEvents = [
    await event('deposit-received', 'delivered', long, refunded),
    await event('deposit-rejected', 'pending', long, refunded),
    await event('deposit-refunded', 'delivered', daysAgo(1), refunded),
  ];

  const pruned = await prune();
  expect(pruned.webhookAttempts).toBeGreaterThanOrEqual(2);
  expect(pruned.depositEvents).toBeGreaterThanOrEqual(3);
  const attempts = async (seq: string) =>
    (
      await api.db.query('SELECT round, attempt FROM webhook_attempts WHERE event_seq = $1 ORDER BY round, attempt', [
        seq,
      ])
    ).map((r: { round: number; attempt: number }) => `${r.round}.${r.attempt}`);
  expect({ delivered: await attempts(delivered), retrying: await attempts(retrying) }).toEqual({
    delivered: ['1.2'],
    retrying: ['2.1'],
  });
  const kept = async (events: string[]) => Promise.all(events.map(eventKept));
  // The latest event of a settled deposit stays: it is the deposit's processed outcome in the funnel report.
  expect({
    completed: await kept(completedEvents),
    bridging: await kept(bridgingEvents),
    refunded: await kept(refundedEvents),
  }).toEqual({ completed: [false, false, true], bridging: [true, true], refunded: [false, true, true] });
}, 90_000);

test('storage that only grows: raw analytics events of days past the retention are pruned once folded; reports within it read the same', async () => {
  const { projectId } = await createProject(api.db, `retention-${uid()}`);
  const retention = api.services.config.retention.analyticsEventsDays;
  // Where the retention begins, the first UTC day whose raw events are kept (that day), and events around them.
  const boundary = Date.now() - retention * DAY;
  const firstKept = Math.floor(boundary / DAY) * DAY;
  const ev = (
    session: string,
    at: number,
    kind: AcceptedEvent['event'],
    more: Partial<AcceptedEvent> = {},
  ): AcceptedEvent => ({
    event: kind,
    sessionId: session,
    modal: 'deposit',
    step: kind === 'deposit_modal_correlator_observed' ? null : 'amount',
    outcome: null,
    reason: null,
    reasonFamily: null,
    fundingMethod: 'wallet',
    depositId: null,
    occurredAt: new Date(at),
    data: { session, at, kind },
    ...more,
  });
  const [{ id: depositId }] = await api.db.query(
    `WITH a AS (INSERT INTO deposit_accounts (address, project_id, owner, owner_type, managed, session_signer, target_chain_id, target_token, recipient)
                VALUES ($2, $1, $2, 'EOA', true, $2, 42161, $3, $2))
     INSERT INTO deposits (project_id, account, chain_id, tx_hash, log_index, token, amount, sender, block_number, target_chain_id, target_token, recipient, stage)
     VALUES ($1, $2, 8453, $4, 0, $3, 1000000, $2, 1, 42161, $3, $2, 'completed') RETURNING id::text`,
    [projectId, privateKeyToAccount(generatePrivateKey()).address.toLowerCase(), ARB_USDC, TX(850_000 + seq++)],
  );
  for (const [type, at] of [
    ['deposit-received', 2],
    ['bridge-complete', 1],
  ] as const) {
    await api.db.query(
      "INSERT INTO webhook_events (event_id, project_id, idempotency_key, type, deposit_id, payload, status, created_at) VALUES ($1, $2, $1, $3, $4, '{}', 'delivered', $5)",
      [`evt_${uid()}`, projectId, type, depositId, daysAgo(api.services.config.retention.depositEventsDays + at)],
    );
  }
  await storeEvents(api.db, projectId, [
    ev('gone', firstKept - 2 * DAY, 'deposit_modal_step_open'),
    ev('gone', firstKept - 2 * DAY + 60_000, 'deposit_modal_ui_outcome', { outcome: 'completed' }),
    ev('spans', firstKept - 3_600_000, 'deposit_modal_step_open'), // a session across the first kept midnight
    ev('spans', firstKept + 2 * 3_600_000, 'deposit_modal_ui_outcome', { outcome: 'abandoned' }),
    ev('early', firstKept + 60_000, 'deposit_modal_step_open'), // before the boundary, on the first kept day
    ev('first-day', firstKept + 5 * 3_600_000, 'deposit_modal_step_open'),
    ev('first-day', firstKept + 6 * 3_600_000, 'deposit_modal_correlator_observed', { depositId }),
    ev('later', firstKept + 3 * DAY, 'deposit_modal_step_open', { step: 'quote' }),
    ev('later', firstKept + 3 * DAY + 60_000, 'deposit_modal_ui_outcome', {
      outcome: 'failed',
      reason: 'quote_x',
      reasonFamily: 'quote',
    }),
  ]);
  await foldPending(api.db, projectId);
  // Stored as received when they occurred.
  await api.db.query('UPDATE analytics_events SET received_at = occurred_at WHERE project_id = $1', [projectId]);
  const ranges = [
    { from: new Date(boundary), to: new Date() }, // the longest range within the retention: its first day is partial
    { from: new Date(firstKept), to: new Date() },
    { from: new Date(firstKept + 4 * 3_600_000), to: new Date(firstKept + 3 * DAY + 30_000) },
  ];
  const report = () => Promise.all(ranges.map((r) => funnel(api.db, { projectId, modal: 'deposit', ...r })));
  const before = await report();
  expect(before[1].deposits.byOutcome).toEqual([{ widget: 'none', processed: 'completed', count: 1 }]);

  // A batch not folded yet (its project's fold is held meanwhile, as while a fold of it runs): kept however old.
  const fold = api.db.createQueryRunner();
  await fold.connect();
  await fold.startTransaction();
  try {
    await fold.query("SELECT pg_advisory_xact_lock(hashtextextended('analytics-fold/' || $1, 0))", [projectId]);
    await storeEvents(api.db, projectId, [ev('unfolded', firstKept - 3 * DAY, 'deposit_modal_step_open')]);
    await api.db.query(
      "UPDATE analytics_events SET received_at = occurred_at WHERE project_id = $1 AND session_id = 'unfolded'",
      [projectId],
    );
    expect((await prune()).analyticsEvents).toBeGreaterThanOrEqual(3);
    const sessions = (
      await api.db.query('SELECT DISTINCT session_id FROM analytics_events WHERE project_id = $1 ORDER BY 1', [
        projectId,
      ])
    ).map((r: { session_id: string }) => r.session_id);
    expect(sessions).toEqual(['early', 'first-day', 'later', 'spans', 'unfolded']);
    expect(
      await exists(
        "SELECT 1 FROM analytics_events WHERE project_id = $1 AND session_id = 'spans' AND occurred_at < $2",
        [projectId, new Date(firstKept)],
      ),
    ).toBe(false);
  } finally {
    await fold.rollbackTransaction();
    await fold.release();
  }
  // Exact as before, and as computed from the raw events kept; the deposit keeps its processed outcome.
  const after = await report();
  expect(after).toEqual(before);
  for (const [i, r] of ranges.entries())
    expect(await funnelFromRaw(api.db, { projectId, modal: 'deposit', ...r })).toEqual(after[i]);
}, 90_000);
