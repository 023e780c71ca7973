/**
 * Analytics: widget events ingested through POST /analytics/events (token, validation, dedupe, one multi-row insert
 * that queues the batch for the funnel's fold, which the worker runs meanwhile) at batch sizes 1, 50 and 500, beside a plain multi-row INSERT of the same
 * rows into a copy of the table from this process; then GET /analytics/funnel over 1,000,000 and 10,000,000 stored
 * events of one project (--funnel-events to change the sizes), beside the raw computation over the same events.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../src/db/types';
import { createProject } from '../src/projects/api-keys';
import { funnelFromRaw } from '../src/analytics/store';
import { rebuildFunnelRollup } from '../src/analytics/rollup-store';
import { simulate } from '../test/support/widget-sessions';
import { arg, type Kit } from './kit';

const FUNNEL_EVENTS = (arg('--funnel-events') ?? '1000000,10000000').split(',').map(Number);
/** Funnel requests per size (p99 of these). */
const FUNNEL_REQUESTS = Number(arg('--funnel-requests')) || 100;
const DAY = 86_400_000;

export async function benchAnalytics(
  kit: Kit,
  url: string,
  headers: Record<string, string>,
  db: Db,
): Promise<string[]> {
  const { measure } = kit;
  const token = (
    (await (await fetch(`${url}/analytics/ingest-token`, { method: 'POST', headers, body: '{}' })).json()) as {
      token: string;
    }
  ).token;
  const events = Array.from(
    { length: 40 },
    (_, i) => simulate(Date.now() - DAY + i * 1000, `bench-${i}`).events,
  ).flat();
  await db.query('CREATE TABLE IF NOT EXISTS analytics_baseline (LIKE analytics_events INCLUDING ALL)');
  const rows: string[] = [];
  let offset = 0;
  const scale = Math.max(0.05, kit.requests / 1000);
  for (const [size, batches] of [
    [1, 400],
    [50, 120],
    [500, 24],
  ] as const) {
    const n = Math.max(2, Math.round(batches * scale));
    const take = () => {
      const batch = events.slice(offset % events.length, (offset % events.length) + size);
      offset += size;
      return batch.length === size ? batch : events.slice(0, size);
    };
    const ingest = await measure(`POST /analytics/events, batches of ${size}`, 8, n, async () => {
      const res = await fetch(`${url}/analytics/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ events: take().map((e) => ({ ...e, widget_version: `${offset}` })) }),
      });
      if (res.status !== 200) throw new Error(`analytics ingest: ${res.status}`);
      await res.arrayBuffer();
    });
    const baseline = await measure(`baseline: plain INSERT, batches of ${size}`, 8, n, async () => {
      const batch = take();
      await db.query(
        `INSERT INTO analytics_baseline (dedupe_key, session_id, event, modal, step, outcome, reason, funding_method, occurred_at, data)
         SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::jsonb[])`,
        [
          batch.map(() => randomBytes(32)),
          batch.map((e) => e.session_id),
          batch.map((e) => e.event),
          batch.map((e) => e.modal ?? null),
          batch.map((e) => e.step ?? null),
          batch.map((e) => e.outcome ?? null),
          batch.map((e) => e.reason ?? null),
          batch.map((e) => e.funding_method ?? null),
          batch.map((e) => new Date(e.timestamp as number)),
          batch.map((e) => JSON.stringify(e)),
        ],
      );
    });
    rows.push(
      `| ${size} | ${(ingest.rps * size).toFixed(0)} | ${(baseline.rps * size).toFixed(0)} | ${(ingest.rps / baseline.rps).toFixed(2)} | ${ingest.p50.toFixed(1)} / ${ingest.p99.toFixed(1)} |`,
    );
  }

  const funnelRows: string[] = [];
  for (const total of FUNNEL_EVENTS) funnelRows.push(await benchFunnel(kit, url, db, total));
  return [
    '',
    '## Analytics',
    '',
    'Widget events through `POST /analytics/events` (ingest token, schema and rule validation, dedupe key, one multi-row',
    'INSERT with `ON CONFLICT DO NOTHING` that queues the batch for the rollup; the worker folds the queue into the rollup',
    'every second meanwhile, on the same machine) at 8 concurrent senders, beside a plain multi-row INSERT of the same rows',
    'into a copy of the table (same indexes, no rollup) from the benchmark process.',
    'Target: ingest at batch 500 ≥ 50% of the plain INSERT.',
    '',
    '| batch size | ingested events/s | baseline: plain INSERT events/s | ratio | ingest p50 / p99 ms |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    "Funnel over one project's stored events (five-event sessions over six days, loaded with INSERT ... SELECT",
    'generate_series; the rollup built from them with the SQL the folds use), `GET /analytics/funnel` over the 7 days up',
    `to now, ${FUNNEL_REQUESTS} sequential requests per row, unfiltered and filtered by funding method; its answer checked equal to the raw`,
    'computation, whose time (in the benchmark process, the query before the rollup) is the baseline. Targets: p99 < 150 ms',
    'over 1,000,000 events, < 300 ms over 10,000,000.',
    '',
    '| events | sessions | load s | rollup build s | funnel p50 / p99 ms | filtered p50 / p99 ms | baseline: raw computation ms |',
    '|---|---|---|---|---|---|---|',
    ...funnelRows,
  ];
}

/** Loads `total` events into a project of their own, builds their rollup and times the funnel over them. */
async function benchFunnel(kit: Kit, url: string, db: Db, total: number): Promise<string> {
  const sessions = Math.max(1, Math.floor(total / 5));
  const spacingSeconds = (6 * 86_400) / sessions;
  const { projectId, apiKey } = await createProject(db, `analytics-bench-${total}`);
  const loadStarted = performance.now();
  await db.query(
    `INSERT INTO analytics_events (project_id, dedupe_key, session_id, event, modal, step, outcome, reason, reason_family, funding_method, deposit_id, occurred_at, data)
     SELECT $1::uuid, sha256(convert_to($1::uuid::text || s || ':' || k, 'UTF8')), 's' || s,
            CASE WHEN k <= 4 THEN 'deposit_modal_step_open' ELSE 'deposit_modal_ui_outcome' END, 'deposit',
            (ARRAY['method', 'amount', 'quote', 'wallet_processing', 'wallet_processing'])[CASE WHEN k = 5 AND s % 4 = 0 THEN 2 ELSE k END],
            CASE WHEN k < 5 THEN NULL WHEN s % 4 = 0 THEN 'abandoned' WHEN s % 7 = 0 THEN 'failed' ELSE 'completed' END,
            CASE WHEN k = 5 AND s % 7 = 0 AND s % 4 <> 0 THEN 'quote_expired' END, CASE WHEN k = 5 AND s % 7 = 0 AND s % 4 <> 0 THEN 'quote' END,
            CASE WHEN k = 1 THEN NULL WHEN s % 2 = 0 THEN 'wallet' ELSE 'transfer' END, NULL,
            now() - interval '6 days 1 hour' + s * make_interval(secs => $2) + k * interval '9 seconds', '{}'::jsonb
     FROM generate_series(1, $3::int) AS s, generate_series(1, 5) AS k`,
    [projectId, spacingSeconds, sessions],
  );
  await db.query('VACUUM ANALYZE analytics_events'); // as autovacuum leaves a table in production
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const rollupStarted = performance.now();
  await rebuildFunnelRollup(db, projectId);
  await db.query('VACUUM ANALYZE analytics_funnel_sessions, analytics_funnel_days');
  const rollupSeconds = (performance.now() - rollupStarted) / 1000;
  await db.query('CHECKPOINT'); // the load's dirty pages written now, not by a checkpoint during the timed reports

  const to = new Date();
  const from = new Date(to.getTime() - 7 * DAY);
  const path = (fundingMethod?: string) =>
    `/analytics/funnel?from=${from.toISOString()}&to=${to.toISOString()}${fundingMethod ? `&fundingMethod=${fundingMethod}` : ''}`;
  const get = async (fundingMethod?: string) => {
    const res = await fetch(`${url}${path(fundingMethod)}`, { headers: { 'x-api-key': apiKey } });
    if (res.status !== 200) throw new Error(`funnel: ${res.status} ${await res.text()}`);
    return res.json() as Promise<{ sessions: number }>;
  };
  const rawStarted = performance.now();
  const raw = await funnelFromRaw(db, { projectId, modal: 'deposit', from, to });
  const rawMs = performance.now() - rawStarted;
  const answer = await get();
  if (answer.sessions !== sessions || !isDeepStrictEqual(answer, raw)) {
    throw new Error(
      `the funnel over ${total} events differs from the raw computation: ${JSON.stringify(answer).slice(0, 300)} vs ${JSON.stringify(raw).slice(0, 300)}`,
    );
  }
  const unfiltered = await kit.measure(
    `GET /analytics/funnel over ${total} events`,
    1,
    FUNNEL_REQUESTS,
    async () => void (await get()),
  );
  const filtered = await kit.measure(
    `GET /analytics/funnel?fundingMethod over ${total} events`,
    1,
    FUNNEL_REQUESTS,
    async () => void (await get('transfer')),
  );
  return (
    `| ${total.toLocaleString('en-US')} | ${sessions.toLocaleString('en-US')} | ${loadSeconds.toFixed(0)} | ${rollupSeconds.toFixed(0)} | ` +
    `${unfiltered.p50.toFixed(0)} / ${unfiltered.p99.toFixed(0)} | ${filtered.p50.toFixed(0)} / ${filtered.p99.toFixed(0)} | ${rawMs.toFixed(0)} |`
  );
}
