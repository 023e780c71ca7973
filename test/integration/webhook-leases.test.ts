import { WorkflowNotFoundError } from '@temporalio/client';
import { Client } from 'pg';
import { waitFor } from '../../src/dev/processes';
import { Api, call, killWorkers, startApi, startWorker, until } from '../support/harness';
import { suiteReceivers, type Behaviour } from '../support/receiver';
import { newProject, subscribe, type Project } from '../support/projects';
import { DUE_CHANNEL, DUE_SQL, LEASE_SQL, leaseValues, PgLeaseStore } from '../../src/webhooks/lease-store';
import { leaseTargets, type DueEndpoint } from '../../src/webhooks/leases';

/** First attempts come from the worker's lease loop (src/webhooks/lease-loop.ts); Temporal only runs retries that wait. */
const DP = '/deposit-processor';
let api: Api;

beforeAll(async () => {
  // It kills and restarts workers: its own, never the lane's the other suites run on. A lease outlives its attempt by
  // 10 s (not the run's 1 s): a loaded machine's pause between a lease and its attempt never lets the next lease
  // repeat a delivery the kill -9 test counts.
  api = await startApi({ ownDatabase: true, settings: { WEBHOOK_CLAIM_LEASE_SECONDS: '10' } });
  await startWorker(api.env);
});
afterAll(() => api.close());

const receiver = suiteReceivers();

const sendTest = async (p: Project) => {
  const res = await call(p, 'POST', `${DP}/webhooks/test`, { body: { type: 'deposit-received' } });
  expect(res.status).toBe(200);
  return res.json.eventId as string;
};
const event = async (p: Project, eventId: string) => (await call(p, 'GET', `${DP}/webhooks/events/${eventId}`)).json;

/** Whether any Temporal workflow ever ran for this event (a round's id from before the lease loop, or an endpoint's retry id). */
async function anyWorkflow(on: Api, eventId: string, endpointId: string): Promise<boolean> {
  for (const id of [`webhook-${eventId}-1`, `webhook-${eventId}-1-${endpointId}`]) {
    const found = await on.temporal.workflow
      .getHandle(id)
      .describe()
      .then(
        () => true,
        (e) => {
          if (e instanceof WorkflowNotFoundError) return false;
          throw e;
        },
      );
    if (found) return true;
  }
  return false;
}

/**
 * The share tests watch which attempts end first, so nothing may end one early: they run on a worker of their own
 * whose attempts time out after 30 s (not the run's 2 s, which a loaded machine's pause can outlast), and the test
 * ends the hanging attempts it wants ended.
 */
describe('shares of the attempt slots', () => {
  let shares: Api;
  beforeAll(async () => {
    shares = await startApi({ ownDatabase: true, settings: { WEBHOOK_TIMEOUT_SECONDS: '30' } });
    await startWorker(shares.env);
  });
  afterAll(() => shares.close());

  test('every tenant gets its share: a project whose 20 hanging endpoints would take every slot leaves a steady tenant its slots at once, and a new one the next slots freed ahead of its backlog', async () => {
    const { concurrency, endpointConcurrency } = shares.services.config.webhooks;
    const greedy = await newProject(shares, 'greedy');
    const hanging = await Promise.all(
      Array.from({ length: Math.ceil(concurrency / endpointConcurrency) }, () => receiver(() => 'hang')),
    );
    const endpoints = [];
    for (const r of hanging) endpoints.push((await subscribe(greedy, r)).id);
    const steadyProject = await newProject(shares, 'steady');
    const steady = await receiver();
    await subscribe(steadyProject, steady);
    const newcomerProject = await newProject(shares, 'newcomer');
    const newcomer = await receiver();
    await subscribe(newcomerProject, newcomer);
    const greedyOpen = () => hanging.reduce((n, r) => n + r.open, 0);
    const greedyEnded = () => hanging.reduce((n, r) => n + r.requests.length - r.open, 0); // they end only when released
    const greedyAttempted = () => hanging.reduce((n, r) => n + new Set(r.requests.map((d) => d.id)).size, 0);

    // The steady tenant delivers before the greedy project starts: the one slot it used is kept for it.
    const first = await sendTest(steadyProject);
    await waitFor('the steady tenant served', async () => steady.accepted.has(first), 10_000);
    const events = 30; // 600 deliveries: three times what the slots hold
    await Promise.all(Array.from({ length: events }, () => sendTest(greedy)));
    // All it may: every slot but those other projects hold or lately used.
    let last = -1;
    await waitFor(
      'the greedy project holding all the slots it may',
      async () => {
        const now = greedyOpen();
        const stable = now === last && now >= endpointConcurrency;
        last = now;
        return stable;
      },
      10_000,
    );

    try {
      const steadyIds: string[] = [];
      for (let i = 0; i < 3; i++) steadyIds.push(await sendTest(steadyProject));
      await waitFor('the steady tenant served', async () => steadyIds.every((id) => steady.accepted.has(id)), 20_000);
      expect(greedyEnded()).toBe(0); // served at once: none of the greedy attempts had to end first

      const newIds = await Promise.all(Array.from({ length: 5 }, () => sendTest(newcomerProject)));
      // One greedy endpoint's attempts end: the new tenant takes the slots they free, ahead of the greedy backlog.
      const attempted = greedyAttempted();
      hanging[0].release(endpointConcurrency);
      await waitFor('the new tenant served', async () => newIds.every((id) => newcomer.accepted.has(id)), 20_000);
      expect(greedyAttempted() - attempted).toBeLessThan(endpointConcurrency);
      expect(greedyAttempted()).toBeLessThan((events * hanging.length) / 2);
    } finally {
      // Its deliveries still due end at their next lease, without an attempt; those under way end now, not in 30 s
      // with the slots they hold.
      for (const id of endpoints) await call(greedy, 'DELETE', `${DP}/webhooks/endpoints/${id}`);
      for (const r of hanging) r.stopHanging();
    }
  });

  test('23.1 a slow endpoint does not hold others: their first attempts are made at once by the lease loop, with no workflow', async () => {
    const share = shares.services.config.webhooks.endpointConcurrency;
    const slowProject = await newProject(shares, 'slow');
    const slow = await receiver(() => 'hang'); // answers after the attempt timeout: as slow as a receiver gets
    await subscribe(slowProject, slow);
    const healthyProject = await newProject(shares, 'healthy');
    const healthy = await receiver();
    const { id: endpointId } = await subscribe(healthyProject, healthy);
    await Promise.all(Array.from({ length: share + 20 }, () => sendTest(slowProject)));
    await waitFor('the slow receiver saturated', async () => slow.open >= share, 10_000);

    const slowEnded = slow.requests.length - slow.open; // its attempts end only at the 30 s timeout
    const ids = await Promise.all(Array.from({ length: 10 }, () => sendTest(healthyProject)));
    await waitFor('healthy deliveries', async () => ids.every((id) => healthy.accepted.has(id)), 10_000);
    // Served while every attempt the slow endpoint had under way still hung: the healthy events waited for none to end.
    expect(slow.requests.length - slow.open).toBe(slowEnded);
    expect(slow.open).toBe(share);
    expect(slow.maxOpen).toBeLessThanOrEqual(share);
    for (const id of ids) {
      await waitFor(
        `event ${id} delivered`,
        async () => (await event(healthyProject, id)).status === 'delivered',
        10_000,
      );
      expect(await event(healthyProject, id)).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(await anyWorkflow(shares, id, endpointId)).toBe(false);
    }
    slow.stopHanging();
  });
});

/** Rows the plan read from webhook_deliveries: what each node over it returned or filtered out, over its loops. */
function deliveryRowsRead(node: Record<string, unknown>): number {
  const own =
    node['Relation Name'] === 'webhook_deliveries'
      ? (Number(node['Actual Rows']) +
          Number(node['Rows Removed by Filter'] ?? 0) +
          Number(node['Rows Removed by Index Recheck'] ?? 0)) *
        Number(node['Actual Loops'])
      : 0;
  return (
    own +
    ((node.Plans as Record<string, unknown>[] | undefined) ?? []).reduce(
      (sum, child) => sum + deliveryRowsRead(child),
      0,
    )
  );
}

test("23.1 the lease reads none of the backlog of an endpoint at its share: beside 3,000 of its rows, another endpoint's 5 are found and leased reading fewer than 50", async () => {
  const share = api.services.config.webhooks.endpointConcurrency;
  // In a transaction rolled back at the end: the worker's lease loop never sees these rows.
  const runner = api.db.createQueryRunner();
  await runner.startTransaction();
  try {
    const [{ id: busy }, { id: other }] = await runner.query(
      `INSERT INTO webhook_endpoints (project_id, url, secret) SELECT $1, 'https://example.com/hook', 'whsec_x' FROM generate_series(1, 2) RETURNING id`,
      [api.projectId],
    );
    const backlog = async (endpointId: string, n: number, tag: string) =>
      runner.query(
        `WITH e AS (INSERT INTO webhook_events (event_id, project_id, idempotency_key, type, payload, status)
         SELECT 'evt_leasecost_' || $3 || '_' || g, $1, 'leasecost:' || $3 || ':' || g, 'deposit-received', '{}', 'pending' FROM generate_series(1, $2) g
         RETURNING seq)
       INSERT INTO webhook_deliveries (event_seq, endpoint_id, round, status, next_attempt_at)
       SELECT seq, $4, 1, 'pending', now() - interval '1 minute' FROM e`,
        [api.projectId, n, tag, endpointId],
      );
    await backlog(other, 5, 'other');
    await backlog(busy, 3000, 'busy');
    await runner.query('ANALYZE webhook_deliveries'); // as autovacuum would: it counts this transaction's rows
    // Every endpoint but the other one at its share: the busy one, and any an earlier test left with due deliveries.
    const full = (
      (await runner.query(
        `SELECT DISTINCT endpoint_id AS "endpointId" FROM webhook_deliveries WHERE status = 'pending' AND endpoint_id <> $1`,
        [other],
      )) as { endpointId: string }[]
    ).map((r) => r.endpointId);
    const explained = async (sql: string, args: unknown[]) => {
      await runner.query('SAVEPOINT lease');
      const [
        {
          'QUERY PLAN': [plan],
        },
      ] = await runner.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, args);
      await runner.query('ROLLBACK TO SAVEPOINT lease');
      return deliveryRowsRead(plan.Plan);
    };
    const dueRead = await explained(DUE_SQL, [full]);
    const due = (await runner.query(DUE_SQL, [full])) as DueEndpoint[];
    expect(due).toEqual([{ endpointId: other, projectId: api.projectId }]);
    const targets = leaseTargets(due, 200, {
      perEndpoint: share,
      endpoints: Object.fromEntries(full.map((id) => [id, share])),
      projects: {},
      shares: new Map([[api.projectId, 200]]),
    });
    const args = leaseValues({ limit: 200, leaseSeconds: 30, targets });
    const leaseRead = await explained(LEASE_SQL, args);
    const [leased] = (await runner.query(LEASE_SQL, args)) as [{ endpointId: string }[], number]; // typeorm: [rows, count] for an UPDATE
    // The other endpoint's five are leased, and the busy endpoint's 3,000 rows are not read (a scan in due order
    // read every one of them on every lease).
    expect(leased.map((c) => c.endpointId)).toEqual(Array(5).fill(other));
    expect(dueRead + leaseRead).toBeLessThan(50);
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
});

test('23.2 kill -9 of the worker with deliveries leased and due: after a restart every event is delivered once per endpoint', async () => {
  const p = await newProject(api, 'leases-durable');
  // Each receiver holds its first request per event open: the worker dies with those attempts leased and in flight.
  const hangFirst: Behaviour = (_d, nth) => (nth === 1 ? 'hang' : 200);
  const a = await receiver(hangFirst);
  const b = await receiver(hangFirst);
  await subscribe(p, a);
  await subscribe(p, b);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(await sendTest(p));
  await waitFor('attempts in flight', async () => a.open > 0 && b.open > 0, 10_000);
  killWorkers(api.env);
  // Emitted while no worker runs: recorded, leased by the next worker.
  for (let i = 0; i < 5; i++) ids.push(await sendTest(p));
  await startWorker(api.env);
  for (const id of ids)
    await waitFor(`event ${id} delivered`, async () => (await event(p, id)).status === 'delivered', 60_000);
  for (const r of [a, b]) {
    expect([...r.accepted.keys()].sort()).toEqual([...ids].sort());
    // Once per endpoint: exactly one successful request per event, whatever was repeated after the kill.
    for (const id of ids) expect(r.forId(id).filter((d) => d.answer === 200)).toHaveLength(1);
  }
  for (const id of ids) {
    const record = await event(p, id);
    expect(record.deliveries).toHaveLength(2);
    expect(record.deliveries.every((d: { status: string }) => d.status === 'delivered')).toBe(true);
    expect(record.attemptLog.filter((x: { statusCode: number | null }) => x.statusCode === 200)).toHaveLength(2);
  }
}, 120_000);

test("the lease store's LISTEN connection ended by the database, while it listens and after it closed: it goes on on the pool, and the pool takes the later error", async () => {
  const lost: string[] = [];
  const store = new PgLeaseStore(api.db, { warn: (_obj, msg) => lost.push(msg) });
  // Its connection is the one whose last statement is its LISTEN (the run's worker's has run leases since).
  const listening = async (): Promise<number[]> =>
    (
      await api.db.query(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1 AND pid <> pg_backend_pid()',
        [`LISTEN ${DUE_CHANNEL}`],
      )
    ).map((r: { pid: number }) => r.pid);
  const others = await listening();
  const ownConnection = async () => {
    await store.listen(() => undefined);
    const [pid] = (await listening()).filter((p) => !others.includes(p));
    expect(pid).toBeDefined();
    return pid;
  };
  // From a connection of its own: a pooled one may be the very connection ended (after close, it is in the pool).
  const terminate = async (pid: number) => {
    const admin = new Client({ connectionString: api.env.databaseUrl });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
  };

  await terminate(await ownConnection());
  await until('the lost connection noticed', async () => (lost.length ? true : undefined));
  expect(lost).toEqual(['webhook LISTEN connection lost']);
  expect(await store.due([])).toEqual(expect.any(Array));

  const pid = await ownConnection();
  store.close();
  await terminate(pid);
  await until('the pool dropped the ended connection', async () =>
    (await api.db.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).length ? undefined : true,
  );
  expect(await store.due([])).toEqual(expect.any(Array));
  expect(lost).toHaveLength(1);
});
