import type { Db } from '../db/types';
import type { WebhookConfig } from './config';
import type { Outbox } from '../outbox/outbox';
import { attemptLeased } from './deliver';
import type { LeasedDelivery } from './delivery-store';
import type { AttemptSlots } from './slots';
import { PgLeaseStore, type LeaseStore } from './lease-store';
import { leaseTargets, waitingAfterLease, wakes, type Waiting } from './leases';
import { inSpan } from '../tracing/context';

/** How often a lease loop looks without being woken: deliveries whose worker died come due when their lease ends. */
const POLL_MS = 1000;

interface Log {
  warn(obj: object, msg: string): void;
}

/** Makes a leased delivery's first attempt, calling `sent` once the receiver answered (src/webhooks/deliver.ts). */
export type LeasedAttempt = (c: LeasedDelivery, sent: () => void) => Promise<void>;

/**
 * The first attempt of every delivery, without Temporal: each worker process leases due deliveries from
 * PostgreSQL (`FOR UPDATE SKIP LOCKED`, so any number of workers share the table and none takes another's row) and
 * attempts them at once, within the process's slots (src/webhooks/slots.ts: WEBHOOK_CONCURRENCY in all,
 * WEBHOOK_ENDPOINT_CONCURRENCY per endpoint, and each project its fair share). A lease moves the
 * row's next_attempt_at to the end of the attempt's timeout plus WEBHOOK_CLAIM_LEASE_SECONDS, so a worker killed
 * mid-attempt leaves the row to be leased again then (at least once; the same webhook-id). A failed attempt that
 * must be retried hands the delivery to a Temporal workflow in the transaction that records it; Temporal owns every
 * wait. The loop holds no state a restart would lose.
 */
export class LeaseLoop {
  private stopped = false;
  private wake?: () => void;
  /** woken while leasing: look again before sleeping */
  private poked = false;
  /** the finishing attempts that wake the loop: any while a lease runs, then as `waitingAfterLease` says */
  private waiting: Waiting = 'any';
  private readonly attempts = new Set<Promise<void>>();
  private loop?: Promise<void>;

  constructor(
    private readonly store: LeaseStore,
    private readonly attemptLeased: LeasedAttempt,
    private readonly config: Pick<WebhookConfig, 'timeoutSeconds' | 'leaseSeconds'>,
    private readonly slots: AttemptSlots,
    private readonly log: Log,
    private readonly pollMs = POLL_MS,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Stops leasing and waits for the attempts under way (a stopping worker calls this before closing the database). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    await this.loop;
    await Promise.allSettled([...this.attempts]);
    this.store.close();
  }

  private poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.poked = false;
      await this.store.listen(() => this.poke());
      const free = this.slots.total - this.slots.inFlight;
      let more = false; // the lease took all it could: more may be due
      if (free > 0) {
        // An attempt that finishes while the lease runs frees a slot the lease did not count on: it wakes the loop.
        this.waiting = 'any';
        try {
          more = (await this.lease(free)) === free;
        } catch (err) {
          this.log.warn({ err }, 'webhook lease failed; retried on the next poll');
        }
      }
      // An endpoint or project left out at its share is at its share still (one that freed a slot meanwhile woke the loop).
      this.waiting = waitingAfterLease(free <= 0 || more, this.slots.fullEndpoints(), this.slots.waitingAtShare());
      if (more || this.poked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /**
   * Leases up to `limit` due deliveries, no endpoint or project past its share in this process, and starts their
   * attempts (the lease returns what each sends). Returns how many it leased.
   */
  private async lease(limit: number): Promise<number> {
    const due = await this.store.due(this.slots.fullEndpoints());
    const targets = leaseTargets(due, limit, this.slots.look(due.map((d) => d.projectId)));
    if (!targets.length) return 0;
    const leased = await this.store.lease({
      limit,
      leaseSeconds: this.config.timeoutSeconds + this.config.leaseSeconds,
      targets,
    });
    for (const c of leased) {
      // A retry activity may have taken the endpoint's or the project's last slot meanwhile: the delivery goes back.
      if (this.slots.tryTake(c.endpointId, c.projectId)) this.attempt(c);
      else void this.store.release(c);
    }
    return leased.length;
  }

  private attempt(c: LeasedDelivery): void {
    let held = true;
    const sent = () => {
      if (!held) return;
      held = false;
      this.slots.give(c.endpointId, c.projectId);
      if (wakes(this.waiting, c.endpointId, c.projectId)) this.poke();
    };
    const run = this.attemptLeased(c, sent)
      .catch((err) =>
        this.log.warn(
          { err, eventId: c.eventId, endpointId: c.endpointId },
          'webhook attempt failed; its delivery is leased again when its lease ends',
        ),
      )
      .finally(() => {
        sent();
        this.attempts.delete(run);
      });
    this.attempts.add(run);
  }
}

/** The worker's lease loop: its statements on PostgreSQL, its attempts' retries handed over through the outbox. */
export function createLeaseLoop(
  db: Db,
  config: WebhookConfig,
  slots: AttemptSlots,
  outbox: Outbox,
  log: Log,
): LeaseLoop {
  // In the trace of whoever opened the round: the POST, and the retry workflow it may hand over to.
  const attempt: LeasedAttempt = (c, sent) =>
    inSpan('webhook first attempt', c.traceContext, { 'webhook.event_id': c.eventId }, async () => {
      const start = await attemptLeased(db, config, c, sent);
      // Left to the outbox sweeper when it fails, or when the process already holds its share of pending starts.
      if (start) await outbox.startSoon(start, () => undefined);
    });
  return new LeaseLoop(new PgLeaseStore(db, log), attempt, config, slots, log);
}
