/**
 * The request path measured against baselines from the same run, on this machine over loopback (the processes:
 * bench/stack.ts). Figures, each from its own file: quote (bench/quotes.ts), submit (bench/submits.ts) and indexer-batch
 * (bench/indexer.ts) latency and throughput at 1, 8 and 32 clients beside the baselines (bench/baselines.ts); balance
 * events ingested per second in batches of 1,000 (bench/indexer.ts); fill → status visible (bench/fill-latency.ts);
 * API RSS and CPU per request by process (bench/cpu.ts); where each route's time goes, its domain steps timed one by
 * one (bench/steps.ts); webhooks (bench/webhooks.ts) and analytics (bench/analytics.ts). bench/report.ts writes the
 * request path's part of the report.
 * Usage: npm run bench [-- --requests 1000] [--only requests,submit,webhooks,analytics,ingestion,fill,lifecycle]
 *   [--burst-rounds 50] [--funnel-events 1000000,10000000]
 * Writes bench/RESULTS.md (a whole run only), keeping the sections it does not write itself
 * (bench/worker-memory.ts, bench/chain-indexer.ts, bench/chain-indexer-latency.ts, bench/capacity.ts, the cluster
 * chaos test, before/after comparisons).
 */
import fs from 'node:fs';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { projectRoot } from '../src/dev/processes';
import { benchAnalytics } from './analytics';
import { benchBaselines } from './baselines';
import { cpuSample, processRss, settle } from './cpu';
import { benchFillAfterBurst, benchFillLatency, BURST, untilStarted, type Latency } from './fill-latency';
import {
  benchIngestion,
  benchIngestionFloor,
  benchLifecycleIngestion,
  benchNewcomerIngestion,
  benchOneEventBatches,
} from './indexer';
import { arg, type Kit, type Result, runBench, type Stack } from './kit';
import { measure, median, percentile } from './measure';
import { benchQuotes, signedQuotes } from './quotes';
import { cpuRows, fillLines, lifecycleRow, newcomerRow, report, submitShareRow } from './report';
import { startStack } from './stack';
import { benchSteps } from './steps';
import { benchSubmits } from './submits';
import { benchWebhooks } from './webhooks';

const REQUESTS = Number(arg('--requests')) || 1000; // fewer make the 32-client throughputs swing by a third between runs
/**
 * `--only requests,submit,webhooks,analytics,ingestion,fill,lifecycle`: those sections alone, printed (bench/RESULTS.md is
 * written by a whole run only); `requests` is everything but the webhooks and analytics; `submit` is our share of a
 * submit's CPU beside a bare workflow start (8 clients, after the warm-up round); `ingestion` is the two rows of
 * balance events in batches of 1,000 alone (two indexers over 20,000 accounts, then the newcomer's shape); `fill` the
 * two rows of fill → visible alone (over intents submitted one at a time for them); `lifecycle` lifecycle events in
 * batches (the fills, then the claims, of 2,000 intents), a section of its own that a whole run does not take.
 */
const ONLY = arg('--only')?.split(',');
const LEVELS = [1, 8, 32];
/** Rounds of fill → visible after a burst of submits (`--burst-rounds`): one fill each. */
const BURST_ROUNDS = Number(arg('--burst-rounds')) || 50;

const cleanup: Kit['cleanup'] = [];

interface Rounds {
  results: Result[];
  eventsPerSecond: number;
  newcomer: Result;
  /** the newcomer's batches as PostgreSQL alone stores them (benchIngestionFloor) */
  floor: Result;
  fill: Latency;
  fillAfterBurst: Latency;
  spare: PrivateKeyAccount[];
}

/**
 * Ingestion (funding the accounts), then a round per concurrency of baselines, quotes, submits and one-event batches,
 * then fill → status over the intents submitted at 1 client. One unrecorded round at 1 client comes first: every
 * process answers the measured rounds with its code already compiled by the JIT and its pools filled, as a
 * long-running service does.
 */
async function requestRounds(kit: Kit, stack: Stack): Promise<Rounds> {
  // One account per request keeps submits independent.
  const total = REQUESTS * (LEVELS.length + 1) + 60 + BURST * BURST_ROUNDS;
  const accounts = Array.from({ length: Math.max(total, 20_000) }, () => privateKeyToAccount(generatePrivateKey()));
  const eventsPerSecond = await benchIngestion(kit, stack, accounts);
  const newcomer = await benchNewcomerIngestion(kit, stack);
  const floor = await benchIngestionFloor(kit, stack);

  const results: Result[] = [];
  const submittedAt1: string[] = [];
  let cursor = 0;
  for (const [round, c] of [1, ...LEVELS].entries()) {
    const into = round === 0 ? [] : results;
    into.push(...(await benchBaselines(kit, stack, c)));
    const batch = accounts.slice(cursor, cursor + REQUESTS);
    cursor += REQUESTS;
    const quotes = await benchQuotes(kit, stack, c, batch);
    into.push(quotes.result);
    into.push(...(await benchSubmits(kit, stack, c, quotes.signed)));
    if (round === 1) submittedAt1.push(...quotes.signed.map((op) => BigInt(op.nonce).toString()));
    into.push(await benchOneEventBatches(kit, stack, c, batch));
  }
  const spare = accounts.slice(cursor, cursor + 60);
  const { fill, fillAfterBurst } = await fillRows(kit, stack, submittedAt1, accounts.slice(cursor + 60));
  return { results, eventsPerSecond, newcomer, floor, fill, fillAfterBurst, spare };
}

/**
 * Fill → visible over intents submitted at 1 client: on a quiet machine (the last BURST_ROUNDS of them kept), then
 * right after bursts of submits from `funded` accounts, the first beside the second as its baseline.
 */
async function fillRows(kit: Kit, stack: Stack, submitted: string[], funded: PrivateKeyAccount[]) {
  const fill = await benchFillLatency(kit, stack, submitted.slice(0, -BURST_ROUNDS));
  const fillAfterBurst = await benchFillAfterBurst(kit, stack, submitted.slice(-BURST_ROUNDS), funded);
  return { fill, fillAfterBurst };
}

/** The two fill rows alone, over intents submitted one at a time (`--only fill`). */
async function fillReport(kit: Kit, stack: Stack): Promise<string[]> {
  const accounts = Array.from({ length: BURST * BURST_ROUNDS + 2 * BURST_ROUNDS }, () =>
    privateKeyToAccount(generatePrivateKey()),
  );
  await benchIngestion(kit, stack, accounts);
  const submitted = await signedQuotes(stack, accounts.slice(0, 2 * BURST_ROUNDS));
  for (const signedIntentOp of submitted) await stack.post('/intent-operations', { signedIntentOp }, 201);
  const nonces = submitted.map((op) => BigInt(op.nonce).toString());
  const { fill, fillAfterBurst } = await fillRows(kit, stack, nonces, accounts.slice(2 * BURST_ROUNDS));
  return fillLines(fill, fillAfterBurst);
}

/**
 * Our share of a submit alone: the baselines, quotes and submits of the request rounds at 1 client (unrecorded, the
 * warm-up) and at 8, then the target row and the CPU table of the round at 8.
 */
async function submitReport(kit: Kit, stack: Stack): Promise<string[]> {
  const accounts = Array.from({ length: 2 * REQUESTS }, () => privateKeyToAccount(generatePrivateKey()));
  await benchIngestion(kit, stack, accounts);
  const results: Result[] = [];
  for (const [round, c] of [1, 8].entries()) {
    const into = round === 0 ? [] : results;
    into.push(...(await benchBaselines(kit, stack, c)));
    const quotes = await benchQuotes(kit, stack, c, accounts.slice(round * REQUESTS, (round + 1) * REQUESTS));
    into.push(quotes.result, ...(await benchSubmits(kit, stack, c, quotes.signed)));
  }
  return [submitShareRow(results), '', ...cpuRows(results)];
}

/** The balance-ingestion rows alone, in the order the request rounds take them. */
async function ingestionReport(kit: Kit, stack: Stack): Promise<string[]> {
  const accounts = Array.from({ length: 20_000 }, () => privateKeyToAccount(generatePrivateKey()));
  const eventsPerSecond = await benchIngestion(kit, stack, accounts);
  const newcomer = await benchNewcomerIngestion(kit, stack);
  const floor = await benchIngestionFloor(kit, stack);
  return [
    `| balance events ingested per second (batches of 1,000, 2 indexers) | ${eventsPerSecond.toFixed(0)} | ≥ 10,000 |`,
    newcomerRow(newcomer, floor),
  ];
}

/**
 * Intents whose fills and claims the lifecycle-event batches report: eight batches of each, so the first (the API's
 * warm-up) is not a quarter of the rate and the p50.
 */
const LIFECYCLE_INTENTS = 2000;

/** Lifecycle events in batches (`--only lifecycle`): the fills, then the claims, of intents submitted before. */
async function lifecycleReport(kit: Kit, stack: Stack): Promise<string[]> {
  const accounts = Array.from({ length: LIFECYCLE_INTENTS }, () => privateKeyToAccount(generatePrivateKey()));
  await benchIngestion(kit, stack, accounts);
  const signed = await signedQuotes(stack, accounts);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < signed.length) await stack.post('/intent-operations', { signedIntentOp: signed[next++] }, 201);
    }),
  );
  // The submits' lifecycle starts are performed after their answers: the batches are measured once they are done.
  await untilStarted(stack);
  const { fills, claims } = await benchLifecycleIngestion(
    kit,
    stack,
    signed.map((op) => BigInt(op.nonce).toString()),
  );
  return [lifecycleRow('fills', fills), lifecycleRow('claims', claims)];
}

/** The request path's report, its RSS read before the steps run in this process. */
async function requestReport(kit: Kit, stack: Stack, rounds: Rounds): Promise<string[]> {
  const rss = { api: processRss(stack.pids.api), worker: processRss(stack.pids.worker) };
  const steps = await benchSteps(kit, stack, rounds.spare);
  return report(
    rounds.results,
    {
      eventsPerSecond: rounds.eventsPerSecond,
      newcomer: rounds.newcomer,
      floor: rounds.floor,
      fill: rounds.fill,
      fillAfterBurst: rounds.fillAfterBurst,
      rss,
      steps,
    },
    REQUESTS,
  );
}

async function main() {
  const stack = await startStack(cleanup);
  const kit: Kit = { measure, median, settle, cpuSample, percentile, requests: REQUESTS, cleanup };
  const webhooks = () => benchWebhooks(kit, stack.url, stack.db, stack.temporalClient, stack.rt.config.webhooks);
  const analytics = () => benchAnalytics(kit, stack.url, stack.headers, stack.db);
  if (ONLY) {
    const lines = [
      ...(ONLY.includes('requests') ? await requestReport(kit, stack, await requestRounds(kit, stack)) : []),
      ...(ONLY.includes('submit') ? await submitReport(kit, stack) : []),
      ...(ONLY.includes('ingestion') ? await ingestionReport(kit, stack) : []),
      ...(ONLY.includes('fill') ? await fillReport(kit, stack) : []),
      ...(ONLY.includes('lifecycle') ? await lifecycleReport(kit, stack) : []),
      ...(ONLY.includes('webhooks') ? await webhooks() : []),
      ...(ONLY.includes('analytics') ? await analytics() : []),
    ];
    console.log(lines.join('\n'));
    return;
  }
  // The webhook section first, on a fresh stack: run after the request rounds (thousands of intents and their
  // lifecycles), one round of its slow-receiver comparison had a p99 anywhere from 15 to 370 ms in both conditions,
  // against 15 to 45 ms (a spike or two aside) on a fresh stack. Analytics last: its 10,000,000-event load would weigh
  // on everything after it.
  const webhookLines = await webhooks();
  const rounds = await requestRounds(kit, stack);
  const analyticsLines = await analytics();
  const lines = [...(await requestReport(kit, stack, rounds)), ...webhookLines, ...analyticsLines];
  console.log(lines.join('\n'));
  const results = path.join(projectRoot, 'bench', 'RESULTS.md');
  // Sections this run does not write (measured apart by their own scripts or by hand: worker memory, the chain
  // indexer, the cluster's chaos test, before/after comparisons) are kept as they are.
  const written = new Set(lines.filter((l) => l.startsWith('## ')));
  const apart = fs.existsSync(results)
    ? [...fs.readFileSync(results, 'utf8').matchAll(/\n(## [^\n]*)\n[\s\S]*?(?=\n## |$)/g)]
        .filter((m) => !written.has(m[1]))
        .map((m) => m[0])
        .join('')
    : '';
  fs.writeFileSync(results, lines.join('\n') + '\n' + apart);
}

runBench(main, cleanup);
