/** bench/RESULTS.md's request-path part (the webhook and analytics sections add their own lines). */
import os from 'node:os';
import { BURST, type Latency } from './fill-latency';
import { LIFECYCLE_BATCH } from './indexer';
import type { Result } from './kit';
import { STARTED } from './submits';

export interface Extra {
  eventsPerSecond: number;
  /** one indexer's batches of new accounts, one after another: `rps` in events per second (bench/indexer.ts) */
  newcomer: Result;
  floor: Result;
  fill: Latency;
  fillAfterBurst: Latency;
  rss: { api: number; worker: number };
  steps: Record<string, number>;
}

/**
 * The newcomer's ingestion as a target row (bench/indexer.ts: benchNewcomerIngestion), beside the same batches as
 * PostgreSQL alone stores them in the same run (benchIngestionFloor): the most the route could reach on this machine.
 */
export const newcomerRow = (r: Result, floor: Result) =>
  `| balance events ingested per second (batches of 1,000 new accounts, 1 indexer, one after another) | ${r.rps.toFixed(0)} (batch p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; CPU per batch: API ${r.cpu?.API?.toFixed(1)} ms, PostgreSQL ${r.cpu?.PostgreSQL?.toFixed(1)} ms; PostgreSQL alone, its two inserts per batch: ${floor.rps.toFixed(0)}, p50 ${floor.p50.toFixed(1)} ms, its CPU ${floor.cpu?.PostgreSQL?.toFixed(1)} ms) | ≥ 50,000 | ${r.rps >= 50_000 ? 'met' : '**missed**'} |`;

/** Lifecycle events ingested in batches (bench/indexer.ts, benchLifecycleIngestion): events/s, a batch's latency and CPU. */
export const lifecycleRow = (kind: 'fills' | 'claims', r: Result) =>
  `| lifecycle events ingested per second (batches of ${LIFECYCLE_BATCH} ${kind}, 1 indexer, one after another) | ${r.rps.toFixed(0)} (batch p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms; CPU per batch: API ${r.cpu?.API?.toFixed(1)} ms, PostgreSQL ${r.cpu?.PostgreSQL?.toFixed(1)} ms) |`;

/** CPU ms per request of every process in a measurement (bench/cpu.ts). */
const allCpu = (r: Result) => Object.values(r.cpu!).reduce((a, b) => a + b, 0);

/** What a submit costs the processes that are ours (Temporal's and the load's are not), in CPU ms per submit. */
export const ourShare = (submit: Result) => submit.cpu!.API + submit.cpu!.worker + submit.cpu!.PostgreSQL;

/**
 * Our share of a submit until its lifecycle started, against everything a bare workflow start costs the machine,
 * both at 8 clients in the same run: what the submit adds to Temporal's own work should cost no more than that.
 */
export function submitShareRow(results: Result[]): string {
  const at = (name: string) => results.find((r) => r.concurrency === 8 && r.name.includes(name))!;
  const share = ourShare(at(STARTED));
  const bare = allCpu(at('workflow start'));
  return `| our share of a submit (API + worker + PostgreSQL CPU ms) vs a bare workflow start's whole CPU ms, 8 clients | ${(share / bare).toFixed(2)}x (${share.toFixed(2)} ms vs ${bare.toFixed(2)} ms) | ≤ 1.00x | ${share <= bare ? 'met' : '**missed**'} |`;
}

/** The CPU table's rows (`| operation | clients | <processes> | all | ceiling req/s |`). */
export function cpuRows(results: Result[]): string[] {
  const processes = Object.keys(results.find((r) => r.cpu)?.cpu ?? {});
  return [
    `| operation | clients | ${processes.join(' | ')} | all | ceiling req/s |`,
    `|---|---|${processes.map(() => '---|').join('')}---|---|`,
    ...results
      .filter((r) => r.cpu)
      .map(
        (r) =>
          `| ${r.name} | ${r.concurrency} | ${processes.map((p) => r.cpu![p].toFixed(2)).join(' | ')} | ${allCpu(r).toFixed(2)} | ${((os.cpus().length * 1000) / allCpu(r)).toFixed(0)} |`,
      ),
  ];
}

/**
 * Fill → visible as target rows: on a quiet machine (the baseline, read every 2 ms), and right after a burst of
 * submits, read as fast as the reader can (bench/fill-latency.ts).
 */
export const fillLines = (fill: Latency, afterBurst: Latency) => {
  const fmt = (l: Latency) => `${l.p99.toFixed(1)} ms (p50 ${l.p50.toFixed(1)} ms)`;
  return [
    `| fill event POST → status visible on GET, p99 | ${fmt(fill)} | < 150 ms | ${fill.p99 < 150 ? 'met' : '**missed**'} |`,
    `| the same right after a burst of ${BURST} submits, status read in a tight loop, p99 | ${fmt(afterBurst)} | < 100 ms | ${afterBurst.p99 < 100 ? 'met' : '**missed**'} |`,
  ];
};

/** The report's lines: targets, every measurement, CPU per request by process, and where the time goes. */
export function report(results: Result[], x: Extra, requests: number): string[] {
  const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  const at = (name: string, c: number) => results.find((r) => r.concurrency === c && r.name.includes(name))!;
  const trivial = (c: number) => at('trivial', c);
  const start = (c: number) => at('workflow start', c);
  const ratio = (a: number, b: number) => a / b;
  const row = (figure: string, value: number, target: string, ok: boolean, fmt = (v: number) => `${v.toFixed(2)}x`) =>
    `| ${figure} | ${fmt(value)} | ${target} | ${ok ? 'met' : '**missed**'} |`;
  const targets = [
    ...[1, 8].flatMap((c) => [
      row(
        `quote p50 vs trivial route, ${c} client${c > 1 ? 's' : ''}`,
        ratio(at('quote', c).p50, trivial(c).p50),
        '≤ 3x',
        ratio(at('quote', c).p50, trivial(c).p50) <= 3,
      ),
      row(
        `quote p99 vs trivial route, ${c} client${c > 1 ? 's' : ''}`,
        ratio(at('quote', c).p99, trivial(c).p99),
        '≤ 3x',
        ratio(at('quote', c).p99, trivial(c).p99) <= 3,
      ),
    ]),
    ...[8, 32].map((c) =>
      row(
        `quote throughput vs trivial route, ${c} clients`,
        ratio(at('quote', c).rps, trivial(c).rps) * 100,
        '≥ 35%',
        ratio(at('quote', c).rps, trivial(c).rps) >= 0.35,
        (v) => `${v.toFixed(0)}%`,
      ),
    ),
    // Counted until the lifecycles were started (the answers come sooner: see the table below).
    ...[8, 32].map((c) =>
      row(
        `submit throughput vs bare workflow starts, ${c} clients (until every lifecycle started)`,
        ratio(at(STARTED, c).rps, start(c).rps) * 100,
        '≥ 60%',
        ratio(at(STARTED, c).rps, start(c).rps) >= 0.6,
        (v) => `${v.toFixed(0)}%`,
      ),
    ),
    row(
      'submit p50 vs bare workflow start, 1 client',
      ratio(at('submit', 1).p50, start(1).p50),
      '≤ 2x',
      ratio(at('submit', 1).p50, start(1).p50) <= 2,
    ),
    submitShareRow(results),
    row(
      'indexer batch of 1 event, p99 vs bare workflow start (1 client)',
      ratio(at('batch of 1', 1).p99, start(1).p99),
      '≤ 2x',
      ratio(at('batch of 1', 1).p99, start(1).p99) <= 2,
    ),
    row(
      'balance events ingested per second (batches of 1,000, 2 indexers)',
      x.eventsPerSecond,
      '≥ 10,000',
      x.eventsPerSecond >= 10_000,
      (v) => v.toFixed(0),
    ),
    newcomerRow(x.newcomer, x.floor),
    ...fillLines(x.fill, x.fillAfterBurst),
    row('API process RSS after the run', x.rss.api, '< 250 MiB', x.rss.api < 250 * 2 ** 20, mb),
  ];
  const lines = [
    '# Benchmark results',
    '',
    `Command: \`npm run bench -- --requests ${requests}\` (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, ${mb(os.totalmem())}, Node ${process.version}).`,
    'Everything on one machine over loopback: Temporal dev server (SQLite in memory), PostgreSQL, one worker process, the API',
    "process, and a baseline process serving the API's authentication in front of a route that does nothing; the load comes",
    'from the benchmark process. Every ratio compares with a baseline of the same concurrency measured in the same run.',
    'Each measurement starts on a quiet machine (under a quarter of the CPU busy, waited for up to 5 s), after one',
    'unrecorded warm-up round at 1 client.',
    '',
    '## Targets',
    '',
    '| figure | measured | target | |',
    '|---|---|---|---|',
    ...targets,
    '',
    '## All measurements',
    '',
    '| operation | clients | req/s | p50 ms | p99 ms | req/s vs trivial route | p50 vs trivial route | p50 vs workflow start |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const ms = (v: number, digits: number, suffix = '') => (Number.isNaN(v) ? '–' : `${v.toFixed(digits)}${suffix}`);
    lines.push(
      `| ${r.name} | ${r.concurrency} | ${r.rps.toFixed(0)} | ${ms(r.p50, 1)} | ${ms(r.p99, 1)} | ${(r.rps / trivial(r.concurrency).rps).toFixed(3)} | ${ms(r.p50 / trivial(r.concurrency).p50, 1, 'x')} | ${ms(r.p50 / start(r.concurrency).p50, 2, 'x')} |`,
    );
  }
  lines.push(
    '',
    `RSS after the run: API process ${mb(x.rss.api)}, worker ${mb(x.rss.worker)}.`,
    '',
    '## CPU per request, by process',
    '',
    'CPU time (ms) each process used during a measurement, divided by its requests (from /proc, 10 ms ticks);',
    "PostgreSQL is the backends serving the benchmark's database (the server may be shared with other work). The",
    `ceiling is what ${os.cpus().length} cores could serve at that cost if nothing else ran.`,
    '',
    ...cpuRows(results),
    '',
    '## Where the time goes',
    '',
    "Each route's domain steps, called one at a time in the benchmark process against the same PostgreSQL and Temporal",
    "(median of 60). What a route costs beyond its steps is HTTP, authentication and validation: the trivial route's p50",
    `at 1 client (${trivial(1).p50.toFixed(2)} ms) plus schema validation.`,
    '',
    '| step | median ms |',
    '|---|---|',
    ...Object.entries(x.steps).map(([step, ms]) => `| ${step} | ${ms.toFixed(2)} |`),
    '',
    ...whereTheTimeGoes(at, trivial(1).p50, x),
    ...submitCpu(at(STARTED, 8), start(8), trivial(8)),
  );
  return lines;
}

/** What a submit costs the machine until its lifecycle started, beside a bare start (8 clients, from the CPU table). */
function submitCpu(submit: Result, bare: Result, trivialAt8: Result): string[] {
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  const cores = os.cpus().length;
  return [
    `- **Submit throughput** (8 clients): until its lifecycle started, a submit used ${ms(allCpu(submit))} of CPU: the API`,
    `  ${ms(submit.cpu!.API)} (HTTP, verification, the transaction's client side, the workflow start's gRPC call), Temporal`,
    `  ${ms(submit.cpu!.Temporal)} (a start delayed until the fill deadline: no workflow task yet), the worker ${ms(submit.cpu!.worker)}, PostgreSQL`,
    `  ${ms(submit.cpu!.PostgreSQL)} and the load ${ms(submit.cpu!['benchmark (load)'])}. A bare start used ${ms(allCpu(bare))} (Temporal`,
    `  ${ms(bare.cpu!.Temporal)}; no worker runs it). On ${cores} cores those costs cap submits at about`,
    `  ${((cores * 1000) / allCpu(submit)).toFixed(0)}/s and bare starts at about ${((cores * 1000) / allCpu(bare)).toFixed(0)}/s. 60% of the bare start rate`,
    `  would need a whole submit to use at most ${ms(allCpu(bare) / 0.6)}; its Temporal part alone used ${ms(submit.cpu!.Temporal)}, and the`,
    `  trivial route (HTTP and the API key, before any intent work) ${ms(allCpu(trivialAt8))}. Our share (API, worker and`,
    `  PostgreSQL) was ${ms(ourShare(submit))}, against the bare start's whole ${ms(allCpu(bare))} (the Targets row).`,
  ];
}

/** Per route, its 1-client p50 taken apart with the steps measured above (what no step covers is said as such). */
function whereTheTimeGoes(at: (name: string, c: number) => Result, trivial: number, x: Extra): string[] {
  const step = (prefix: string) => Object.entries(x.steps).find(([k]) => k.startsWith(prefix))![1];
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const quote = at('quote', 1).p50;
  const submit = at('submit', 1).p50;
  const batch = at('batch of 1', 1).p50;
  const create = step('quote: createQuote');
  const submitSteps = step('submit: read') + step('submit: verify') + step('submit: record');
  return [
    `- **Quote** (p50 ${ms(quote)} at 1 client): the trivial route's ${ms(trivial)} (HTTP, API key, quota), then`,
    `  createQuote ${ms(create)}: the reads ${ms(step('quote: of which the reads'))}, the server signature`,
    `  ${ms(step('quote: of which the server signature'))}, the store ${ms(step('quote: of which the store'))}, planning and building the rest.`,
    quote - trivial - create >= 0.1
      ? `  ${ms(quote - trivial - create)} are in no step: body validation, the response's JSON and the API's own middleware.`
      : '  Nothing measurable is left beyond these steps.',
    `- **Submit** (p50 ${ms(submit)}): the trivial route's ${ms(trivial)}, the stored quote ${ms(step('submit: read'))}, the`,
    `  verification ${ms(step('submit: verify'))} and the transaction ${ms(step('submit: record'))}; the answer waits for nothing else.`,
    `  ${ms(submit - trivial - submitSteps)} are in no step: body validation, the response and, in the run, the lifecycle starts`,
    `  of the submits answered before (a start step alone takes ${ms(step('submit: start'))}), on the same 2 cores meanwhile.`,
    `- **Indexer batch of 1 event** (p50 ${ms(batch)}): the trivial route's ${ms(trivial)} and the batch transaction`,
    `  ${ms(step('indexer:'))}; its signals are sent after the answer.`,
    `- **Fill → status** (p50 ${ms(x.fill.p50)}): the fill's POST, whose transaction records FILLED (its signal wakes`,
    '  the lifecycle after the answer, which then records nothing new), then the next status read (the reader polls every',
    `  2 ms). Right after a burst of ${BURST} submits, read in a tight loop: p50 ${ms(x.fillAfterBurst.p50)}, p99 ${ms(x.fillAfterBurst.p99)}; the POST`,
    "  shares the API's event loop and PostgreSQL with the burst's lifecycle starts.",
  ];
}
