import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DeadLetterCounts } from '../outbox/store';

export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  latency: Histogram<'method' | 'route'>;
  clientTimeouts: Counter;
  workflowStarts: Counter<'workflow'>;
  pendingStarts: Gauge;
  deadLetters: Gauge<'table'>;
  indexerRefused: Counter<'type' | 'reason'>;
}

/**
 * `pendingStarts`: how many workflow starts this process has taken on and not yet performed; `deadLetters`: the
 * outbox rows Temporal refused for good, per table (both read at each scrape).
 */
export function createMetrics(pendingStarts: () => number, deadLetters: () => Promise<DeadLetterCounts>): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    // A client that did not send its body within the deadline (answered 408): its delay, never an outage of ours.
    clientTimeouts: new Counter({
      name: 'http_client_timeouts_total',
      help: 'requests whose client did not send the body within the deadline (408)',
      registers: [registry],
    }),
    workflowStarts: new Counter({
      name: 'workflow_starts_total',
      help: 'Temporal workflows started by the API',
      labelNames: ['workflow'],
      registers: [registry],
    }),
    // Submits answer before their lifecycle starts: a growing value means Temporal is not keeping up with them.
    pendingStarts: new Gauge({
      name: 'outbox_pending_starts',
      help: 'workflow starts accepted and not yet performed',
      registers: [registry],
      collect() {
        this.set(pendingStarts());
      },
    }),
    // Any value above zero needs an operator: `npm run cli -- outbox dead-letters`, then `outbox retry`.
    deadLetters: new Gauge({
      name: 'outbox_dead_letters',
      help: 'outbox rows dead-lettered after Temporal refused them (no longer retried), by table',
      labelNames: ['table'],
      registers: [registry],
      async collect() {
        const { starts, signals } = await deadLetters();
        this.set({ table: 'workflow_outbox' }, starts);
        this.set({ table: 'signal_outbox' }, signals);
      },
    }),
    // Any increase is an indexer reporting what contradicts what is known: its events are logged with the reason.
    indexerRefused: new Counter({
      name: 'indexer_events_refused_total',
      help: 'indexer events refused as contradicting what is stored, by type and reason',
      labelNames: ['type', 'reason'],
      registers: [registry],
    }),
  };
}
