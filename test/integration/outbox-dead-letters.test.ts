import { spawnSync } from 'node:child_process';
import { WorkflowNotFoundError } from '@temporalio/client';
import { projectRoot } from '../../src/dev/processes';
import { lifecycleStarts } from '../../src/intents/store';
import { awaitingWorkflowId, queueSignals } from '../../src/outbox/store';
import { sweeperScheduleId } from '../../src/outbox/sweeper';
import { claimEvent, eventId, fillEvent, TX } from '../support/fixtures';
import { Api, call, fundedAccount, ingest, startApi, until } from '../support/harness';
import { reaches, signedQuote, statusOf } from '../support/intents';

let api: Api;
let seq = 0;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

/** A signed quote of a fresh account with 5 USDC locked on Base. */
const quote = async () => signedQuote(api, await fundedAccount(api));

/** A submitted intent; `deadlineIn`: its fill deadline that many seconds from now, else the fill window's. */
async function submitted(deadlineIn?: number): Promise<string> {
  const { id, signedIntentOp } = await signedQuote(
    api,
    await fundedAccount(api),
    deadlineIn && Math.floor(Date.now() / 1000) + deadlineIn,
  );
  expect((await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } })).status).toBe(201);
  return id;
}

/** A preconfirmation for an intent, recorded as the indexer route records it and left to the sweeper. */
async function queuedPreconfirmation(id: string): Promise<string> {
  const start = (await lifecycleStarts(api.db.manager, [id], api.services.config.intents.fillGraceSeconds)).get(id)!;
  const [row] = await queueSignals(api.db.manager, [
    { workflowId: `intent-${id}`, signal: 'preconfirmation', payload: { chainId: 42161 }, start },
  ]);
  return row.id;
}

/**
 * A preconfirmation of the intent dead-lettered as if refused (e.g. while its run was full), queued and marked with
 * the worker's sweeper paused: past the tests' one-second grace it would deliver the row while still pending.
 */
const deadLetteredPreconfirmation = (id: string): Promise<string> =>
  withoutWorkerSweeps(async () => {
    const parked = await queuedPreconfirmation(id);
    await api.db.query(
      "UPDATE signal_outbox SET status = 'dead', attempts = 10, last_error = 'refused' WHERE id = $1",
      [parked],
    );
    return parked;
  });

/** Temporal refuses any workflow id longer than 1,000 characters (INVALID_ARGUMENT): a row it will never take. */
const refusedId = () => `refused-${'x'.repeat(1200)}-${seq++}`;

const row = async (table: 'signal_outbox' | 'workflow_outbox', where: string, param: string) =>
  (await api.db.query(`SELECT status, attempts, last_error FROM ${table} WHERE ${where} = $1`, [param]))[0] as
    { status: string; attempts: number; last_error: string | null } | undefined;

/** The operator CLI: its exit status and the JSON of its last line. */
function runCli(...args: string[]): { status: number | null; json: unknown } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/cli.ts', ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...api.env.env },
    encoding: 'utf8',
  });
  return { status: run.status, json: JSON.parse(run.stdout.trim().split('\n').pop()!) };
}
function cli(...args: string[]): unknown {
  const { status, json } = runCli(...args);
  expect(status).toBe(0);
  return json;
}

/** Runs `fn` with the worker's sweeper schedule paused and no sweep under way: only the test's own sweeps touch the rows. */
async function withoutWorkerSweeps<T>(fn: () => Promise<T>): Promise<T> {
  const schedule = api.temporal.schedule.getHandle(sweeperScheduleId(api.env.taskQueue));
  await until('the worker created the sweeper schedule', () =>
    schedule.describe().then(
      () => true,
      () => undefined,
    ),
  );
  await schedule.pause('a test sweeps on its own');
  try {
    await until('no sweep under way', async () =>
      (await schedule.describe()).info.runningActions.length === 0 ? true : undefined,
    );
    return await fn();
  } finally {
    await schedule.unpause();
  }
}

/** The `outbox_dead_letters` gauge of signal rows, as a scrape reads it. */
const deadSignalsGauge = async () =>
  Number(/^outbox_dead_letters\{table="signal_outbox"\} (\d+)/m.exec((await call(api, 'GET', '/metrics')).text)?.[1]);

test('21.4 one bad row does not block the sweep: a start Temporal refuses, and the signals behind it are delivered', async () => {
  const id = await submitted();
  await api.db.query(
    "INSERT INTO workflow_outbox (workflow_id, workflow_type, args, search_attributes, summary, created_at) VALUES ($1, 'holdWithdrawal', '[]', '{}', 'refused', now() - interval '1 hour')",
    [refusedId()],
  );
  const signal = await queuedPreconfirmation(id);
  await api.db.query("UPDATE signal_outbox SET created_at = now() - interval '1 hour' WHERE id = $1", [signal]);
  // The sweeper's pass (it also runs every second in the worker): it neither throws nor stops at the refused start.
  await expect(api.services.outbox.sweep(0)).resolves.toEqual(expect.objectContaining({ started: expect.any(Number) }));
  await reaches(api, id, 'PRECONFIRMED');
}, 60_000);

test('21.4 a refused row is dead-lettered, counted in outbox_dead_letters, listed and retried by the CLI', async () => {
  const workflowId = refusedId();
  const start = { workflowId, workflowType: 'intentLifecycle', args: [], searchAttributes: {}, summary: 'refused' };
  const { refused, dead, gauge } = await withoutWorkerSweeps(async () => {
    const [queued] = await queueSignals(api.db.manager, [
      { workflowId, signal: 'preconfirmation', payload: { chainId: 42161 }, start },
    ]);
    // The gauge is shared by every row of the database: this row counts once it is dead-lettered, not while pending.
    const before = await deadSignalsGauge();
    await api.services.outbox.sweep(0).catch(() => undefined);
    const r = await row('signal_outbox', 'id', queued.id);
    return { refused: queued, dead: r!, gauge: { before, after: await deadSignalsGauge() } };
  });
  expect(dead.status).toBe('dead');
  expect(dead.attempts).toBeGreaterThanOrEqual(1);
  expect(dead.last_error).toMatch(/WorkflowId|length|limit/i);
  expect(gauge.after).toBe(gauge.before + 1);
  // Dead rows are left alone: the sweeper no longer retries them.
  await api.services.outbox.sweep(0);
  expect((await row('signal_outbox', 'id', refused.id))?.attempts).toBe(dead.attempts);

  const listed = cli('outbox', 'dead-letters') as { signals: { id: string; workflowId: string; lastError: string }[] };
  expect(listed.signals).toEqual(
    expect.arrayContaining([expect.objectContaining({ id: refused.id, workflowId, lastError: dead.last_error })]),
  );

  // A dead-lettered row for a live intent (e.g. refused while its run was full): requeued by the CLI, then delivered.
  const id = await submitted();
  const parked = await deadLetteredPreconfirmation(id);
  await api.services.outbox.sweep(0);
  expect(await statusOf(api, id)).toBe('PENDING');
  expect(cli('outbox', 'retry', parked)).toEqual({ requeued: 1 });
  await reaches(api, id, 'PRECONFIRMED');
  expect(await row('signal_outbox', 'id', parked)).toBeUndefined();
}, 90_000);

test('21.9 a lifecycle event that arrives before its intent row commits is kept and delivered once the intent exists', async () => {
  const { id, signedIntentOp } = await quote();
  // The indexer reports the fill of a quote whose submit has not committed yet.
  await ingest(api, [{ id: eventId(), type: 'preconfirmation', chainId: 42161, nonce: id }]);
  expect((await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } })).status).toBe(201);
  await reaches(api, id, 'PRECONFIRMED');
}, 60_000);

test('21.9 an event for a nonce that never becomes an intent is dead-lettered once its wait is over', async () => {
  const nonce = '987654321987654321';
  // A claim (a fill of a nonce never quoted is refused outright: fills come after their quote).
  await ingest(api, [claimEvent(nonce, TX(9), { timestamp: 9, blockNumber: '9' })]);
  const kept = await api.db.query('SELECT id FROM signal_outbox WHERE nonce = $1', [nonce]);
  expect(kept).toHaveLength(1);
  // Its wait (quote TTL + fill grace) is over.
  await api.db.query(
    "UPDATE signal_outbox SET dead_after = now() - interval '1 second', retry_at = now() WHERE nonce = $1",
    [nonce],
  );
  await until('dead-lettered', async () =>
    (await row('signal_outbox', 'nonce', nonce))?.status === 'dead' ? true : undefined,
  );
}, 60_000);

test('21.4 a lifecycle that receives many signals continues as new and ends in the right state', async () => {
  const id = await submitted();
  const handle = api.temporal.workflow.getHandle(`intent-${id}`);
  const start = (await lifecycleStarts(api.db.manager, [id], api.services.config.intents.fillGraceSeconds)).get(id)!;
  // As the outbox delivers events to a lifecycle past its start delay (an operator's signal-with-start wakes one in it).
  const signal = async (events: { signal: string; payload: object }[]) =>
    api.services.outbox.deliver(
      await queueSignals(
        api.db.manager,
        events.map((e) => ({ workflowId: `intent-${id}`, start, ...e })),
      ),
    );
  // Claims of a chain after its first change nothing, each is a signal: more than the test server's continue-as-new
  // suggestion.
  await signal(
    Array.from({ length: 160 }, (_, i) => ({
      signal: 'claim',
      payload: { chainId: 8453, transactionHash: TX(1000 + i), timestamp: 1 + i },
    })),
  );
  await until('continued as new', async () => {
    const d = await handle.describe();
    return d.raw.workflowExecutionInfo?.firstRunId && d.raw.workflowExecutionInfo.firstRunId !== d.runId
      ? true
      : undefined;
  });
  await signal([
    { signal: 'fill', payload: { chainId: 42161, transactionHash: TX(1), timestamp: Math.floor(Date.now() / 1000) } },
    { signal: 'claim', payload: { chainId: 8453, transactionHash: TX(2), timestamp: 2, blockNumber: '7' } },
  ]);
  await reaches(api, id, 'COMPLETED');
  expect(await handle.result()).toBe('COMPLETED');
}, 90_000);

test('state never goes backwards: a dead letter of a lifecycle that ended is not retried once Temporal purged its run (the CLI answers with a conflict)', async () => {
  const id = await submitted(3);
  await ingest(api, [fillEvent(id, TX(1)), claimEvent(id, TX(2), { timestamp: 2, blockNumber: '7' })]);
  await reaches(api, id, 'COMPLETED');
  // Temporal's retention purges the closed run: nothing there remembers the workflow id any more (the dev server
  // deletes a closed run asynchronously, within about a minute). The status above is the indexer's record; the run
  // closes once it has read it at its deadline's grace, and an event then would start it again after the purge.
  const handle = api.temporal.workflow.getHandle(`intent-${id}`);
  expect(await handle.result()).toBe('COMPLETED');
  await api.temporal.workflowService.deleteWorkflowExecution({
    namespace: api.env.namespace,
    workflowExecution: { workflowId: `intent-${id}` },
  });
  // Only "not found" is purged: a call that timed out on a busy machine is not.
  await until(
    'purged',
    () =>
      handle.describe().then(
        () => undefined,
        (e) => (e instanceof WorkflowNotFoundError ? true : undefined),
      ),
    120_000,
  );

  // An event of it that was dead-lettered (e.g. refused while its run was full), and an operator's retry.
  const parked = await deadLetteredPreconfirmation(id);
  const retry = runCli('outbox', 'retry', parked);
  expect(retry.json).toEqual({
    requeued: 0,
    refused: [{ row: parked, reason: `the lifecycle of ${id} has ended (COMPLETED): a retry would start it again` }],
  });
  expect(retry.status).toBe(1);
  // Still dead-lettered, so no sweep starts a fresh lifecycle for the intent.
  await api.services.outbox.sweep(0);
  expect(await row('signal_outbox', 'id', parked)).toMatchObject({ status: 'dead' });
  await expect(handle.describe()).rejects.toThrow(WorkflowNotFoundError);
  expect(await statusOf(api, id)).toBe('COMPLETED');
}, 180_000);

test('sweeper is fair: more than a batch of rows awaiting their owner do not hold back a newer row a dead process left', async () => {
  const batch = 20;
  const nonces = Array.from({ length: batch + 5 }, (_, i) =>
    String(5_000_000_000_000_000n + BigInt(Date.now()) * 100n + BigInt(i)),
  );
  try {
    await withoutWorkerSweeps(async () => {
      // Events for nonces no submit recorded (yet), each due again every minute while it waits, queued first.
      await queueSignals(
        api.db.manager,
        nonces.map((nonce) => ({
          workflowId: awaitingWorkflowId(nonce),
          signal: 'preconfirmation',
          payload: { chainId: 42161 },
          awaiting: { nonce, deadAfter: Date.now() + 3_600_000 },
        })),
      );
      await api.db.query(
        "UPDATE signal_outbox SET created_at = now() - interval '1 hour', retry_at = now() - interval '1 minute' WHERE nonce = ANY($1::numeric[])",
        [nonces],
      );
      // Then the signal of an intent whose API process died before delivering it.
      const id = await submitted();
      const left = await queuedPreconfirmation(id);
      await api.services.outbox.sweep(0, batch);
      expect(await row('signal_outbox', 'id', left)).toBeUndefined(); // delivered by the first sweep
      await reaches(api, id, 'PRECONFIRMED');
    });
  } finally {
    await api.db.query('DELETE FROM signal_outbox WHERE nonce = ANY($1::numeric[])', [nonces]);
  }
}, 90_000);
