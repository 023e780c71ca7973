import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PoolClient, Pool } from 'pg';
import type { WebhookConfig } from '../config';
import type { Outbox } from '../outbox/outbox';
import { attemptClaimed, type Claim, type EndpointSlots } from './deliver';
import { preparedQuery } from '../db/prepared';
import { CLAIM_SQL, claimValues, waitingAfterClaim, wakes, type Waiting } from './claims';

/** The channel a recorded delivery round notifies (with its transaction's commit), so a claim loop wakes at once. */
export const DUE_CHANNEL = 'webhook_due';

/**
 * The claim, prepared once on the listening connection. Its commit need not wait for the WAL flush: a lease lost in
 * a database crash leaves the delivery due, to be claimed again (the same webhook-id).
 */
const CLAIM_STATEMENT = 'webhook_claim';

/** How often a claim loop looks without being woken: deliveries whose claimer died come due when their lease ends. */
const POLL_MS = 1000;

interface Log { warn(obj: object, msg: string): void }

/**
 * The first attempt of every delivery, without Temporal: each worker process claims due deliveries from
 * PostgreSQL (`FOR UPDATE SKIP LOCKED`, so any number of workers share the table and none takes another's row) and
 * attempts them at once, within WEBHOOK_CONCURRENCY in all and WEBHOOK_ENDPOINT_CONCURRENCY per endpoint. A claim is
 * a lease: the row's next_attempt_at moves to the end of the attempt's timeout plus WEBHOOK_CLAIM_LEASE_SECONDS, so
 * a worker killed mid-attempt leaves the row to be claimed again then (at least once; the same webhook-id).
 * A failed attempt that must be retried hands the delivery to a Temporal workflow in the transaction that records
 * it; Temporal owns every wait. The loop holds no state a restart would lose.
 */
export class DeliveryClaimer {
  private stopped = false;
  private listener?: PoolClient;
  private wake?: () => void;
  /** woken while claiming: look again before sleeping */
  private poked = false;
  /** the finishing attempts that wake the loop: any while a claim runs, then as `waitingAfterClaim` says */
  private waiting: Waiting = 'any';
  private readonly attempts = new Set<Promise<void>>();
  private loop?: Promise<void>;

  constructor(
    private readonly db: DataSource,
    private readonly config: WebhookConfig,
    private readonly slots: EndpointSlots,
    private readonly outbox: Outbox,
    private readonly log: Log,
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
    this.listener?.release();
  }

  private poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.poked = false;
      await this.listen();
      const free = this.config.concurrency - this.slots.total;
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
      // An endpoint left out at its share is at its share still (one that freed a slot meanwhile woke the loop).
      this.waiting = waitingAfterClaim(free <= 0 || more, this.slots.snapshot().full);
      if (more || this.poked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** LISTENs on a connection of its own; a lost one is replaced on the next turn (polling covers the gap). */
  private async listen(): Promise<void> {
    if (this.listener || this.stopped) return;
    try {
      const pool: Pool = (this.db.driver as PostgresDriver).master;
      const client = await pool.connect();
      client.on('notification', () => this.poke());
      client.on('error', (err) => {
        this.log.warn({ err }, 'webhook LISTEN connection lost');
        if (this.listener === client) this.listener = undefined;
        client.release(err);
      });
      await client.query(`LISTEN ${DUE_CHANNEL}`);
      this.listener = client;
    } catch (err) {
      this.log.warn({ err }, 'webhook LISTEN failed; polling');
    }
  }

  /**
   * Claims up to `limit` due deliveries, no endpoint past its share in this process, and starts their attempts (the
   * claim returns what each sends). Returns how many it claimed.
   */
  private async claim(limit: number): Promise<number> {
    const { inFlight, full } = this.slots.snapshot();
    // On the listening connection when there is one: a claim never queues behind the attempts' own statements.
    const query = this.listener
      ? async (text: string, values: unknown[]) => (await this.listener!.query<Claim>({ name: CLAIM_STATEMENT, text, values })).rows
      : async (text: string, values: unknown[]) => (await preparedQuery<[Claim[], number]>(this.db, text, values))[0]; // typeorm: [rows, count] for an UPDATE
    const claimed = await query(
      CLAIM_SQL,
      claimValues({ limit, leaseSeconds: this.config.timeoutSeconds + this.config.claimLeaseSeconds, full, inFlight, share: this.slots.perEndpoint }),
    );
    for (const c of claimed) {
      // A retry activity may have taken the endpoint's last slot meanwhile: the delivery goes back to the table.
      if (this.slots.tryTake(c.endpointId)) this.attempt(c);
      else void this.release(c);
    }
    return claimed.length;
  }

  private attempt(c: Claim): void {
    let held = true;
    const sent = () => {
      if (!held) return;
      held = false;
      this.slots.give(c.endpointId);
      if (wakes(this.waiting, c.endpointId)) this.poke();
    };
    const run = attemptClaimed(this.db, this.config, c, sent)
      .then((start) => start && this.outbox.start(start).catch(() => undefined)) // else the outbox sweeper starts it
      .catch((err) => this.log.warn({ err, eventId: c.eventId, endpointId: c.endpointId }, 'webhook attempt failed; its delivery is claimed again after its lease'))
      .finally(() => {
        sent();
        this.attempts.delete(run);
      });
    this.attempts.add(run);
  }

  private async release(c: Claim): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries d SET next_attempt_at = now() FROM webhook_events e
       WHERE e.event_id = $1 AND d.event_seq = e.seq AND d.endpoint_id = $2 AND d.round = $3 AND d.status = 'pending' AND d.workflow_id IS NULL`,
      [c.eventId, c.endpointId, c.round],
    ).catch(() => undefined); // left to its lease
  }
}
