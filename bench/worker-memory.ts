/**
 * The worker's memory through a Temporal outage, on the stack of bench/stack.ts. In flight: intents submitted (each
 * lifecycle waiting out its start delay, so no workflow of theirs is in the worker yet), deposits waiting for their
 * funds (a quote attempt every DEPOSIT_RETRY_SECONDS), and webhook test events emitted all along to an endpoint that
 * answers 500 (each first attempt fails and the worker starts the delivery's retry workflow). Then Temporal is made
 * unreachable (SIGSTOP of the dev server) for `--outage-seconds` while the indexer reports every intent's fill (the
 * API records them; their signals wait in the outbox), and sampling goes on for `--after-seconds` while the backlog
 * arrives at once. Every second: the worker's RSS (/proc) and each of its threads' V8 heap (bench/memory-probe.cjs,
 * preloaded into the worker; Temporal runs workflows in a thread of their own).
 * Usage: npx tsx bench/worker-memory.ts [--intents 1000] [--deposits 100] [--outage-seconds 20] [--after-seconds 90]
 *   [--worker-env KEY=VALUE,KEY=VALUE] (the worker's settings, e.g. WORKER_MAX_CACHED_WORKFLOWS=2310 for Temporal's
 *   default on a 4 GiB heap). Prints median and peak per phase (bench/RESULTS.md, Worker memory).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { registerAccountTypedData } from '../src/deposits/session-digest';
import { projectRoot } from '../src/dev/processes';
import { processRss } from './cpu';
import { balance, BASE_USDC } from './indexer';
import { arg, type Kit, runBench, type Stack } from './kit';
import { measure } from './measure';
import { ARB_USDC, routeBody, sign } from './quotes';
import { startStack } from './stack';

const INTENTS = Number(arg('--intents')) || 1000;
const DEPOSITS = Number(arg('--deposits')) || 100;
const OUTAGE_SECONDS = Number(arg('--outage-seconds') ?? 20);
const AFTER_SECONDS = Number(arg('--after-seconds')) || 90;
/** Seconds of sampling with the load in flight before the outage. */
const BEFORE_SECONDS = 30;
/** Webhook test events emitted per second from the start of sampling to its end. */
const EVENTS_PER_SECOND = 5;
const WORKER_ENV = Object.fromEntries(
  (arg('--worker-env') ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => kv.split('=') as [string, string]),
);

const MiB = 1024 * 1024;

const cleanup: Kit['cleanup'] = [];
const address = () => privateKeyToAccount(generatePrivateKey()).address;
const txHash = (n: number) => `0x${n.toString(16).padStart(64, 'd')}`;

/** A receiver answering 500 to everything: every delivery goes to its retry workflow. */
async function failingReceiver(): Promise<string> {
  const server = http
    .createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500).end());
    })
    .listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

/** Intents submitted: each lifecycle waits out its start delay (no workflow task, nothing cached) until an event. */
async function submittedIntents(stack: Stack, n: number): Promise<string[]> {
  const accounts = Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()));
  for (let i = 0; i < n; i += 1000)
    await stack.post(
      '/indexer/events',
      { events: accounts.slice(i, i + 1000).map((a) => balance(a.address)) },
      200,
      stack.indexer,
    );
  const nonces: string[] = [];
  await measure('quote and submit', 8, n, async (i) => {
    const { intentOp } = await stack.post('/intents/route', routeBody(accounts[i].address), 200);
    await stack.post('/intent-operations', { signedIntentOp: await sign(stack, accounts[i], intentOp!) }, 201);
    nonces[i] = BigInt(intentOp!.nonce as string).toString();
  });
  return nonces;
}

/**
 * The fills of `nonces`, as the indexer reports them: accepted and recorded while Temporal is away, their signals
 * left in the outbox, then delivered together when it is back (each lifecycle runs to FILLED and waits for its claim).
 */
async function fill(stack: Stack, nonces: string[]): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < nonces.length; i += 100) {
    const fills = nonces.slice(i, i + 100).map((nonce, j) => ({
      id: `memory-fill-${nonce}`,
      type: 'fill',
      chainId: 42161,
      nonce,
      transactionHash: txHash(i + j + 1),
      timestamp: now,
    }));
    await stack.post('/indexer/events', { events: fills }, 200, stack.indexer);
  }
}

/** Deposits into managed accounts with no balance reported: each deposit workflow retries its quote on a timer. */
async function waitingDeposits(stack: Stack, n: number): Promise<void> {
  const chains = await fetch(`${stack.url}/deposit-processor/chains`, { headers: stack.headers });
  const { sessionSigner } = (await chains.json()) as { sessionSigner: string };
  const keys = Array.from({ length: n }, () => privateKeyToAccount(generatePrivateKey()));
  const accounts = keys.map((k) => k.address);
  const target = { chain: 'eip155:42161', token: ARB_USDC };
  // Each registration signed by its account: an unproven one's deposits are only recorded, with no workflow waiting.
  const proof = { nonce: '1', deadline: String(Math.floor(Date.now() / 1000) + 86_400) };
  const signatures = await Promise.all(
    keys.map((k) =>
      k.signTypedData(
        registerAccountTypedData(k.address, 42161, sessionSigner, proof) as Parameters<typeof k.signTypedData>[0],
      ),
    ),
  );
  await measure('register-managed', 8, n, async (i) => {
    await stack.post(
      '/deposit-processor/register-managed',
      {
        account: {
          address: accounts[i],
          owner: address(),
          sessionSigner,
          target,
          accountSignature: signatures[i],
          accountNonce: proof.nonce,
          accountDeadline: proof.deadline,
        },
      },
      201,
    );
  });
  const deposits = accounts.map((account, i) => ({
    id: `memory-deposit-${i}`,
    type: 'deposit',
    chainId: 8453,
    transactionHash: txHash(1_000_000 + i),
    logIndex: 0,
    token: BASE_USDC,
    amount: '5000000',
    sender: address(),
    account,
    blockNumber: 100,
  }));
  for (let i = 0; i < n; i += 100)
    await stack.post('/indexer/events', { events: deposits.slice(i, i + 100) }, 200, stack.indexer);
}

interface Sample {
  t: number;
  phase: string;
  rss: number;
  threads: Record<string, { used: number; total: number }>;
}

/** A line of bench/memory-probe.cjs. */
interface ProbeLine {
  t: number;
  thread: string;
  used: number;
  total: number;
  collected?: true;
}

/** The probe's latest line per thread at or before `t`. */
function threadsAt(lines: ProbeLine[], t: number): Sample['threads'] {
  const out: Sample['threads'] = {};
  for (const l of lines) if (l.t <= t) out[l.thread] = { used: l.used, total: l.total };
  return out;
}

const mib = (bytes: number) => (bytes / MiB).toFixed(0);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** Median and peak per phase: RSS, the main and workflow threads' heaps, the other threads' heaps, and the rest. */
function report(samples: Sample[]): string[] {
  const phases = [...new Set(samples.map((s) => s.phase))];
  const heap = (s: Sample, thread: string, field: 'used' | 'total') => s.threads[thread]?.[field] ?? 0;
  const others = (s: Sample) =>
    Object.entries(s.threads)
      .filter(([t]) => t !== 'main' && t !== 'workflow')
      .reduce((sum, [, h]) => sum + h.total, 0);
  const rows = phases.map((phase) => {
    const of = samples.filter((s) => s.phase === phase);
    const cell = (f: (s: Sample) => number) => `${mib(med(of.map(f)))} / ${mib(Math.max(...of.map(f)))}`;
    return (
      `| ${phase} | ${of.length} | ${cell((s) => s.rss)} | ${cell((s) => heap(s, 'main', 'used'))} | ${cell((s) => heap(s, 'main', 'total'))} | ` +
      `${cell((s) => heap(s, 'workflow', 'used'))} | ${cell((s) => heap(s, 'workflow', 'total'))} | ${cell(others)} | ` +
      `${cell((s) => s.rss - Object.values(s.threads).reduce((sum, h) => sum + h.total, 0))} |`
    );
  });
  return [
    "| phase | samples | RSS | main heap used | main heap total | workflow thread heap used | workflow thread heap total | other threads' heaps | RSS − heaps |",
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

async function main() {
  const probeFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'worker-memory-')), 'probe.jsonl');
  cleanup.push(() => fs.rmSync(path.dirname(probeFile), { recursive: true, force: true }));
  const stack = await startStack(cleanup, {
    workerEnv: {
      NODE_OPTIONS: `--require ${path.join(projectRoot, 'bench/memory-probe.cjs')}`,
      MEMORY_PROBE_FILE: probeFile,
      ...WORKER_ENV,
    },
  });
  const endpoint = await stack.post('/deposit-processor/webhooks/endpoints', { url: await failingReceiver() }, 201);
  console.error(
    `endpoint ${String(endpoint.id)}; submitting ${INTENTS} intents, ${DEPOSITS} deposits waiting for funds`,
  );
  const nonces = await submittedIntents(stack, INTENTS);
  await waitingDeposits(stack, DEPOSITS);

  let phase = 'before';
  let emitting = true;
  const emitted = (async () => {
    while (emitting) {
      await Promise.all([
        fetch(`${stack.url}/deposit-processor/webhooks/test`, {
          method: 'POST',
          headers: stack.headers,
          body: JSON.stringify({ type: 'deposit-received' }),
        }).then((r) => r.arrayBuffer()),
        new Promise((r) => setTimeout(r, 1000 / EVENTS_PER_SECOND)),
      ]);
    }
  })();
  const samples: Sample[] = [];
  const sampling = setInterval(
    () => samples.push({ t: Date.now(), phase, rss: processRss(stack.pids.worker), threads: {} }),
    1000,
  );
  const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));
  await sleep(BEFORE_SECONDS);
  phase = 'Temporal unreachable';
  if (OUTAGE_SECONDS) process.kill(stack.pids.temporal, 'SIGSTOP');
  await Promise.all([fill(stack, nonces), sleep(OUTAGE_SECONDS)]);
  process.kill(stack.pids.temporal, 'SIGCONT');
  phase = `after (first ${AFTER_SECONDS / 3} s)`;
  await sleep(AFTER_SECONDS / 3);
  phase = `after (last ${(AFTER_SECONDS * 2) / 3} s)`;
  await sleep((AFTER_SECONDS * 2) / 3);
  clearInterval(sampling);
  emitting = false;
  await emitted;

  // What the worker holds, not what it has yet to collect: one full GC in every thread, then RSS and heaps again.
  fs.writeFileSync(`${probeFile}.gc`, '');
  await sleep(3);
  const collectedRss = processRss(stack.pids.worker);
  const lines: ProbeLine[] = fs
    .readFileSync(probeFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const collected = Object.fromEntries(lines.filter((l) => l.collected).map((l) => [l.thread, l.used]));
  for (const s of samples)
    s.threads = threadsAt(
      lines.filter((l) => !l.collected),
      s.t,
    );
  const outbox = await stack.db.query(
    'SELECT (SELECT count(*) FROM workflow_outbox)::int AS starts, (SELECT count(*) FROM signal_outbox)::int AS signals',
  );
  console.log(
    [
      `Worker memory (MiB, median / peak per phase): ${INTENTS} intents (filled during the outage), ${DEPOSITS} deposits waiting for funds, ` +
        `${EVENTS_PER_SECOND} failing webhook events/s; outage ${OUTAGE_SECONDS} s (SIGSTOP); worker env: ${JSON.stringify(WORKER_ENV)}`,
      '',
      ...report(samples),
      '',
      `After a full GC in every thread: RSS ${mib(collectedRss)}, main heap used ${mib(collected.main ?? 0)}, workflow thread heap used ${mib(collected.workflow ?? 0)}.`,
      `outbox rows left: ${JSON.stringify(outbox[0])}`,
    ].join('\n'),
  );
}

runBench(main, cleanup);
