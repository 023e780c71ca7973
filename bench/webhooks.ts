/**
 * Webhooks: POST /deposit-processor/webhooks/test emits events (each recorded with its delivery, claimed by the
 * worker's claim loop) to receivers in this process; measured beside a bare workflow start at the same concurrency.
 */
import http from 'node:http';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { waitFor } from '../src/dev/processes';
import { createProject } from '../src/projects/api-keys';
import type { Kit, Result } from './kit';

const LEVELS = [1, 8, 32];
/** How long the slow receiver takes to answer. */
const SLOW_MS = 5000;

interface Receiver { url: string; arrivals: Map<string, number>; created: Map<string, number> }

/** A receiver that records each webhook-id's first arrival and its event's creation time, answering 200 after `delayMs`. */
async function receiver(kit: Kit, delayMs = 0): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  const created = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      created.set(id, Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }).timestamp));
      setTimeout(() => res.end('{"ok":true}'), delayMs);
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  kit.cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals, created };
}

/** A project of its own with one endpoint: its API headers and the endpoint's id. */
async function subscribed(url: string, db: DataSource, name: string, r: Receiver): Promise<{ headers: Record<string, string>; endpointId: string }> {
  const { apiKey } = await createProject(db, name);
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const res = await fetch(`${url}/deposit-processor/webhooks/endpoints`, { method: 'POST', headers, body: JSON.stringify({ url: r.url }) });
  if (res.status !== 201) throw new Error(`endpoint: ${res.status} ${await res.text()}`);
  return { headers, endpointId: ((await res.json()) as { id: string }).id };
}

export async function benchWebhooks(kit: Kit, url: string, db: DataSource, temporal: Client): Promise<string[]> {
  const { measure, percentile } = kit;
  let first = 0; // the first emit of a measurement (measure() first waits for a quiet machine)
  const emitter = (headers: Record<string, string>, ids: string[]) => async () => {
    first ||= Date.now();
    const r = await fetch(`${url}/deposit-processor/webhooks/test`, { method: 'POST', headers, body: JSON.stringify({ type: 'deposit-received' }) });
    if (r.status !== 200) throw new Error(`webhooks/test: ${r.status} ${await r.text()}`);
    ids.push(((await r.json()) as { eventId: string }).eventId);
  };
  const latencies = (r: Receiver, ids: string[]) => ids.map((id) => r.arrivals.get(id)! - r.created.get(id)!).sort((a, b) => a - b);
  const delivered = (r: Receiver, ids: string[]) => waitFor('every webhook delivered', async () => ids.every((id) => r.arrivals.has(id)), 300_000);

  const fast = await receiver(kit);
  const main = await subscribed(url, db, 'bench-webhooks', fast);
  const rows: string[] = [];
  let emitP99At8 = NaN;
  for (const c of LEVELS) {
    const start: Result = await measure('baseline: bare workflow start', c, kit.requests, async () => {
      await temporal.workflow.start('benchNoop', { taskQueue: `bench-noop-webhooks-${c}`, workflowId: randomUUID(), args: [] });
    });
    const ids: string[] = [];
    first = 0;
    const emit = await measure('POST /deposit-processor/webhooks/test (emit)', c, kit.requests, emitter(main.headers, ids));
    await delivered(fast, ids);
    const last = Math.max(...ids.map((id) => fast.arrivals.get(id)!));
    const deliveredPerSecond = ids.length / (Math.max(1, last - first) / 1000);
    const latency = latencies(fast, ids);
    if (c === 8) emitP99At8 = percentile(latency, 99);
    rows.push(
      `| ${c} | ${emit.rps.toFixed(0)} | ${deliveredPerSecond.toFixed(0)} | ${(deliveredPerSecond / emit.rps).toFixed(2)} | ` +
        `${percentile(latency, 50).toFixed(0)} / ${percentile(latency, 99).toFixed(0)} | ${start.rps.toFixed(0)} | ${start.p50.toFixed(1)} / ${start.p99.toFixed(1)} |`,
    );
  }

  // One endpoint's first attempts while 8 more clients emit to a second endpoint: a fast one (the baseline: the same
  // load), then a slow one (answers after 5 s), so the difference is the slowness alone.
  const n = Math.max(50, Math.floor(kit.requests / 2));
  const beside = async (other: Receiver, name: string) => {
    const second = await subscribed(url, db, name, other);
    const ids: string[] = [];
    const otherIds: string[] = [];
    await Promise.all([
      measure('emit to the measured endpoint', 8, n, emitter(main.headers, ids)),
      measure(`emit to the ${name} endpoint`, 8, n, emitter(second.headers, otherIds)),
    ]);
    await delivered(fast, ids);
    // A slow endpoint's backlog would take minutes at 5 s an attempt: removed, its deliveries end at their next attempt.
    await fetch(`${url}/deposit-processor/webhooks/endpoints/${second.endpointId}`, { method: 'DELETE', headers: second.headers });
    return { p99: percentile(latencies(fast, ids), 99), sent: otherIds.filter((id) => other.arrivals.has(id)).length };
  };
  const besideFast = await beside(await receiver(kit), 'bench-webhooks-second');
  const besideSlow = await beside(await receiver(kit, SLOW_MS), 'bench-webhooks-slow');
  return [
    '',
    '## Webhooks',
    '',
    'Events emitted through `POST /deposit-processor/webhooks/test` (record the event and its delivery; the worker\'s claim',
    'loop takes it at once on the NOTIFY of the commit) to one endpoint, a receiver in the benchmark process answering 200.',
    'Delivered/s counts from the first emit to the last arrival. Created → first attempt is the receiver\'s arrival time',
    "minus the event's creation time (whole milliseconds; both clocks are this machine's). Targets: delivered/s ≥ 95% of",
    'emitted/s at every level; created → first attempt p99 < 250 ms at 8 clients.',
    '',
    '| clients | events emitted/s | events delivered/s | delivered / emitted | created → first attempt p50 / p99 ms | baseline: bare workflow starts/s | baseline: workflow start p50 / p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Created → first attempt p99 at 8 clients: ${emitP99At8.toFixed(0)} ms (target < 250 ms).`,
    '',
    `A slow receiver (answers after ${SLOW_MS / 1000} s) on another endpoint: 8 clients emit ${n} events to the measured endpoint while 8 more`,
    `emit ${n} to a second endpoint, answering at once (the baseline, the same load) or after ${SLOW_MS / 1000} s (of its events, ${besideSlow.sent}`,
    'had been sent to it when the measured ones were all delivered). Target: the measured p99 changes by < 20%.',
    '',
    '| measured endpoint beside | created → first attempt p99 ms |',
    '|---|---|',
    `| a fast endpoint (baseline) | ${besideFast.p99.toFixed(0)} |`,
    `| the slow endpoint | ${besideSlow.p99.toFixed(0)} |`,
    `| change | ${(((besideSlow.p99 - besideFast.p99) / besideFast.p99) * 100).toFixed(0)}% |`,
  ];
}
