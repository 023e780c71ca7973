import fc from 'fast-check';
import { createProject } from '../../src/projects/api-keys';
import { funnel, funnelFromRaw, storeEvents, type FunnelQuery } from '../../src/analytics/store';
import type { AcceptedEvent } from '../../src/analytics/validate';
import { foldPending, rebuildFunnelRollup } from '../../src/analytics/rollup-store';
import { emitEvent } from '../../src/webhooks/event-store';
import { waitFor } from '../../src/dev/processes';
import { Api, killWorkers, startApi, startWorker } from '../support/harness';

let api: Api;
beforeAll(async () => {
  // It kills and restarts workers: its own, never the lane's the other suites run on.
  api = await startApi({ ownDatabase: true });
  await startWorker(api.env);
});
afterAll(() => api.close());

const DAY = 86_400_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const STEPS = ['method', 'amount', 'quote', 'wallet_processing'];
const OUTCOMES = ['completed', 'abandoned', 'closed', 'friction', 'failed'];

/**
 * Random widget events of a few sessions over four UTC days: coarse times (so firsts tie and sessions cross
 * midnight), a second modal, funding methods chosen mid-session, deposits seen by more than one session.
 */
const event = fc.record({
  session: fc.integer({ min: 0, max: 7 }),
  kind: fc.constantFrom('deposit_modal_step_open', 'deposit_modal_ui_outcome', 'deposit_modal_correlator_observed'),
  modal: fc.constantFrom('deposit', 'deposit', 'deposit', 'withdraw'),
  step: fc.constantFrom(...STEPS),
  outcome: fc.constantFrom(...OUTCOMES),
  family: fc.constantFrom(null, 'quote', 'wallet', 'route'),
  method: fc.constantFrom(null, 'wallet', 'transfer'),
  deposit: fc.constantFrom(null, 'd1', 'd2', 'd3'),
  at: fc.integer({ min: 0, max: 4 * 24 * 6 }).map((tenMinutes) => T0 + tenMinutes * 600_000),
  n: fc.nat(),
});
type Gen = typeof event extends fc.Arbitrary<infer T> ? T : never;

const accepted = (e: Gen, i: number, tag: string): AcceptedEvent => {
  const outcome = e.kind === 'deposit_modal_ui_outcome' ? e.outcome : null;
  return {
    event: e.kind as AcceptedEvent['event'],
    sessionId: `${tag}-s${e.session}`,
    modal: e.modal,
    step: e.kind === 'deposit_modal_correlator_observed' ? null : e.step,
    outcome,
    reason: outcome && e.family ? `${e.family}_x` : null,
    reasonFamily: outcome && e.family ? e.family : null,
    fundingMethod: e.method,
    depositId: e.kind === 'deposit_modal_correlator_observed' ? e.deposit : null,
    occurredAt: new Date(e.at),
    data: { i, tag, n: e.n },
  };
};

/** Ranges in whole days, with partial days at either end, inside one day, and around the whole data. */
const range = fc
  .tuple(fc.integer({ min: -2, max: 5 * 24 }), fc.integer({ min: 1, max: 5 * 24 }), fc.boolean())
  .map(([startHour, hours, wholeDays]) => {
    const from = wholeDays ? T0 + Math.floor(startHour / 24) * DAY : T0 + startHour * 3_600_000 + 1234;
    return {
      from: new Date(from),
      to: new Date(from + (wholeDays ? Math.ceil(hours / 24) * DAY : hours * 3_600_000 + 777)),
    };
  });

test('23.3 the funnel from the rollup equals the raw computation on random events, batches, duplicates and ranges', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(event, { minLength: 1, maxLength: 80 }),
      fc.array(fc.nat({ max: 80 }), { maxLength: 4 }),
      fc.array(range, { minLength: 1, maxLength: 4 }),
      async (gen, cuts, ranges) => {
        const tag = `r${run++}`;
        const { projectId } = await createProject(api.db, `rollup-${tag}`);
        const events = gen.map((e, i) => accepted(e, i, tag));
        // Stored in batches as the ingest route stores them; one batch is sent twice.
        const bounds = [0, ...cuts.filter((c) => c < events.length).sort((a, b) => a - b), events.length];
        for (let i = 0; i + 1 < bounds.length; i++)
          await storeEvents(api.db, projectId, events.slice(bounds[i], bounds[i + 1]));
        await storeEvents(api.db, projectId, events.slice(0, bounds[1]));
        await api.db.transaction((tx) =>
          emitEvent(tx, {
            projectId,
            type: 'bridge-complete',
            idempotencyKey: `${tag}:d1`,
            depositId: 'd1',
            payload: {},
          }),
        );
        for (const r of ranges) {
          for (const fundingMethod of [undefined, 'wallet', 'transfer']) {
            for (const modal of ['deposit', 'withdraw']) {
              const q: FunnelQuery = { projectId, modal, fundingMethod, ...r };
              expect([q, await funnel(api.db, q)]).toEqual([q, await funnelFromRaw(api.db, q)]);
            }
          }
        }
      },
    ),
    { numRuns: 30, seed: 2311 },
  );
}, 300_000);

/** A project's rollup tables as rows. */
const rollupOf = async (projectId: string) => [
  await api.db.query(
    'SELECT modal, method, day::text, metric, key, value::text FROM analytics_funnel_days WHERE project_id = $1 AND value <> 0 ORDER BY 1, 2, 3, 4, 5',
    [projectId],
  ),
  await api.db.query(
    'SELECT modal, session_id, day::text, spans, steps, outcomes, families, methods, deposits FROM analytics_funnel_sessions WHERE project_id = $1 ORDER BY 1, 2, 3',
    [projectId],
  ),
];
const queued = async (projectId: string) =>
  (await api.db.query('SELECT count(*)::int AS n FROM analytics_fold_queue WHERE project_id = $1', [projectId]))[0]
    .n as number;

test('23.4 a rebuild from the raw events gives the rollup that the folds kept', async () => {
  const { projectId } = await createProject(api.db, 'rollup-rebuild');
  const gen = fc.sample(event, { numRuns: 200, seed: 7 });
  const events = gen.map((e, i) => accepted(e, i, 'rebuild'));
  for (let i = 0; i < events.length; i += 37) {
    await storeEvents(api.db, projectId, events.slice(i, i + 37));
    if (i % 74 === 0) await foldPending(api.db, projectId);
  }
  await foldPending(api.db, projectId);
  const kept = await rollupOf(projectId);
  expect(kept[0].length).toBeGreaterThan(0);
  await rebuildFunnelRollup(api.db, projectId);
  expect(await rollupOf(projectId)).toEqual(kept);
});

test('23.3 batches stored while reports and folds run concurrently are each counted once', async () => {
  const { projectId } = await createProject(api.db, 'rollup-concurrent');
  const events = fc.sample(event, { numRuns: 600, seed: 11 }).map((e, i) => accepted(e, i, 'concurrent'));
  const q: FunnelQuery = { projectId, modal: 'deposit', from: new Date(T0 - DAY), to: new Date(T0 + 6 * DAY) };
  const batches = Array.from({ length: 30 }, (_, i) => events.slice(i * 20, i * 20 + 20));
  // Eight senders (one batch twice), reports and the workers' loop folding all at once.
  await Promise.all([
    ...Array.from({ length: 8 }, async (_, sender) => {
      for (let i = sender; i < batches.length; i += 8) await storeEvents(api.db, projectId, batches[i]);
      await storeEvents(api.db, projectId, batches[sender]);
    }),
    ...Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 5; i++) await funnel(api.db, q);
    }),
    ...Array.from({ length: 2 }, async () => {
      for (let i = 0; i < 10; i++) await foldPending(api.db, projectId, { wait: false });
    }),
  ]);
  const folded = await funnel(api.db, q);
  expect(folded.sessions).toBeGreaterThan(0);
  expect(folded).toEqual(await funnelFromRaw(api.db, q));
  expect(await queued(projectId)).toBe(0);
});

test('23.4 the workers fold queued batches without any report, through a kill -9 of the worker, into the rollup a rebuild gives', async () => {
  const { projectId } = await createProject(api.db, 'rollup-worker');
  const events = fc.sample(event, { numRuns: 400, seed: 5 }).map((e, i) => accepted(e, i, 'worker'));
  for (let i = 0; i < 200; i += 20) await storeEvents(api.db, projectId, events.slice(i, i + 20));
  killWorkers(api.env);
  // Batches stored while no worker runs stay queued for the next one.
  for (let i = 200; i < 400; i += 20) await storeEvents(api.db, projectId, events.slice(i, i + 20));
  expect(await queued(projectId)).toBeGreaterThan(0);
  await startWorker(api.env);
  await waitFor('the restarted worker folded the queue', async () => (await queued(projectId)) === 0, 60_000);
  const kept = await rollupOf(projectId);
  expect(kept[1].length).toBeGreaterThan(0);
  await rebuildFunnelRollup(api.db, projectId);
  expect(await rollupOf(projectId)).toEqual(kept);
}, 90_000);
