import type { DataSource } from 'typeorm';
import type { WebhookConfig } from '../config';
import type { Outbox } from '../outbox/outbox';
import { attemptClaimed, type Claim } from './deliver';
import type { AttemptSlots } from './slots';
import { PgClaimStore, type ClaimStore } from './claim-store';
import { claimTargets, waitingAfterClaim, wakes, type Waiting } from './claims';

/** How often a claim loop looks without being woken: deliveries whose claimer died come due when their lease ends. */
const POLL_MS = 1000;

interface Log {
  warn(obj: object, msg: string): void;
}

/** Makes a claimed delivery's first attempt, calling `sent` once the receiver answered (src/webhooks/deliver.ts). */
export type ClaimedAttempt = (c: Claim, sent: () => void) => Promise<void>;

/**
 * The first attempt of every delivery, without Temporal: each worker process claims due deliveries from
 * PostgreSQL (`FOR UPDATE SKIP LOCKED`, so any number of workers share the table and none takes another's row) and
 * attempts them at once, within the process's slots (src/webhooks/slots.ts: WEBHOOK_CONCURRENCY in all,
 * WEBHOOK_ENDPOINT_CONCURRENCY per endpoint, and each project its fair share). A claim is a lease: the row's
 * next_attempt_at moves to the end of the attempt's timeout plus WEBHOOK_CLAIM_LEASE_SECONDS, so a worker killed
 * mid-attempt leaves the row to be claimed again then (at least once; the same webhook-id). A failed attempt that
 * must be retried hands the delivery to a Temporal workflow in the transaction that records it; Temporal owns every
 * wait. The loop holds no state a restart would lose.
 */
export class DeliveryClaimer {
  private stopped = false;
  private wake?: () => void;
  /** woken while claiming: look again before sleeping */
  private poked = false;
  /** the finishing attempts that wake the loop: any while a claim runs, then as `waitingAfterClaim` says */
  private waiting: Waiting = 'any';
  private readonly attempts = new Set<Promise<void>>();
  private loop?: Promise<void>;

  constructor(
    private readonly store: ClaimStore,
    private readonly attemptClaimed: ClaimedAttempt,
    private readonly config: Pick<WebhookConfig, 'timeoutSeconds' | 'claimLeaseSeconds'>,
    private readonly slots: AttemptSlots,
    private readonly log: Log,
    private readonly pollMs = POLL_MS,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Stops claiming and waits for the attempts under way (a stopping worker calls this before closing the database). */
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
      let more = false; // the claim took all it could: more may be due
      if (free > 0) {
        // An attempt that finishes while the claim runs frees a slot the claim did not count on: it wakes the loop.
        this.waiting = 'any';
        try {
          more = (await this.claim(free)) === free;
        } catch (err) {
          this.log.warn({ err }, 'webhook claim failed; retried on the next poll');
        }
      }
      // An endpoint or project left out at its share is at its share still (one that freed a slot meanwhile woke the loop).
      this.waiting = waitingAfterClaim(free <= 0 || more, this.slots.fullEndpoints(), this.slots.waitingAtShare());
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
   * Claims up to `limit` due deliveries, no endpoint or project past its share in this process, and starts their
   * attempts (the claim returns what each sends). Returns how many it claimed.
   */
  private async claim(limit: number): Promise<number> {
    const due = await this.store.due(this.slots.fullEndpoints());
    const targets = claimTargets(due, limit, this.slots.look(due.map((d) => d.projectId)));
    if (!targets.length) return 0;
    const claimed = await this.store.claim({
      limit,
      leaseSeconds: this.config.timeoutSeconds + this.config.claimLeaseSeconds,
      targets,
    });
    for (const c of claimed) {
      // A retry activity may have taken the endpoint's or the project's last slot meanwhile: the delivery goes back.
      if (this.slots.tryTake(c.endpointId, c.project_id)) this.attempt(c);
      else void this.store.release(c);
    }
    return claimed.length;
  }

  private attempt(c: Claim): void {
    let held = true;
    const sent = () => {
      if (!held) return;
      held = false;
      this.slots.give(c.endpointId, c.project_id);
      if (wakes(this.waiting, c.endpointId, c.project_id)) this.poke();
    };
    const run = this.attemptClaimed(c, sent)
      .catch((err) =>
        this.log.warn(
          { err, eventId: c.eventId, endpointId: c.endpointId },
          'webhook attempt failed; its delivery is claimed again after its lease',
        ),
      )
      .finally(() => {
        sent();
        this.attempts.delete(run);
      });
    this.attempts.add(run);
  }
}

/** The worker's claim loop: its statements on PostgreSQL, its attempts' retries handed over through the outbox. */
export function createDeliveryClaimer(
  db: DataSource,
  config: WebhookConfig,
  slots: AttemptSlots,
  outbox: Outbox,
  log: Log,
): DeliveryClaimer {
  const attempt: ClaimedAttempt = async (c, sent) => {
    const start = await attemptClaimed(db, config, c, sent);
    // Left to the outbox sweeper when it fails, or when the process already holds its share of pending starts.
    if (start) await outbox.startSoon(start, () => undefined);
  };
  return new DeliveryClaimer(new PgClaimStore(db, log), attempt, config, slots, log);
}
