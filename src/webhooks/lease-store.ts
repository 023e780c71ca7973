import type { Db } from '../db/types';
import type { PoolClient, Pool } from 'pg';
import type { LeasedDelivery } from './delivery-store';
import { preparedQuery, WITHOUT_FLUSH_WAIT } from '../db/prepared';
import { poolOf } from '../db/pool';
import type { LeaseArgs, DueEndpoint } from './leases';

/** The channel a recorded delivery round notifies (with its transaction's commit), so a lease loop wakes at once. */
export const DUE_CHANNEL = 'webhook_due';

/**
 * The endpoints with due first attempts, but those in `$1` (at their share in this process), with their projects.
 * The endpoints come from a loose index scan over those with pending deliveries (one descent each), and each is
 * checked for a due one with one probe of its own index range, so the cost is the number of endpoints with pending
 * deliveries, never one endpoint's backlog.
 */
export const DUE_SQL = `WITH RECURSIVE endpoints AS (
    (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND workflow_id IS NULL ORDER BY endpoint_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.workflow_id IS NULL AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
    FROM endpoints p WHERE p.endpoint_id IS NOT NULL)
  SELECT p.endpoint_id AS "endpointId", en.project_id AS "projectId"
  FROM endpoints p JOIN webhook_endpoints en ON en.id = p.endpoint_id
  WHERE NOT (p.endpoint_id = ANY($1::uuid[])) AND EXISTS (
    SELECT 1 FROM webhook_deliveries d
    WHERE d.endpoint_id = p.endpoint_id AND d.status = 'pending' AND d.workflow_id IS NULL AND d.next_attempt_at <= now())`;

/**
 * Leases due first attempts and returns what each sends (a `LeasedDelivery`). Each target endpoint gives its oldest due
 * deliveries (by due time, then creation) up to its room, read from the endpoint's own index range, so the cost is
 * what the targets give and never one endpoint's backlog; each project keeps its oldest up to its allowance. Projects
 * take turns (every project's oldest, then every project's second, …) up to `limit`, so one whose backlog is older
 * does not take the slots another's newer deliveries wait for. The chosen rows are locked `SKIP LOCKED` one by one on
 * the primary key, and leased. Candidates are read unlocked so that rows past `limit` are not locked for nothing; one
 * another worker locked or leased meanwhile is skipped or fails the recheck of `next_attempt_at`.
 */
export const LEASE_SQL = `WITH targets AS (
    SELECT * FROM unnest($3::uuid[], $4::int[], $5::uuid[], $6::int[]) AS t(endpoint_id, room, project_id, allowance)),
  candidates AS (
    SELECT c.event_seq, c.endpoint_id FROM (
      SELECT d.event_seq, d.endpoint_id, d.next_attempt_at, t.allowance,
        row_number() OVER (PARTITION BY t.project_id ORDER BY d.next_attempt_at, d.event_seq) AS turn
      FROM targets t CROSS JOIN LATERAL (
        SELECT d.event_seq, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = t.endpoint_id AND d.status = 'pending' AND d.workflow_id IS NULL AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at, d.event_seq LIMIT t.room) d) c
    WHERE c.turn <= c.allowance
    ORDER BY c.turn, c.next_attempt_at, c.event_seq LIMIT $1),
  due AS (
    SELECT l.ctid FROM candidates c CROSS JOIN LATERAL (
      SELECT d.ctid FROM webhook_deliveries d
      WHERE d.event_seq = c.event_seq AND d.endpoint_id = c.endpoint_id
        AND d.status = 'pending' AND d.workflow_id IS NULL AND d.next_attempt_at <= now()
      FOR UPDATE SKIP LOCKED) l)
  UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $2)
  FROM webhook_events e, webhook_endpoints en, ${WITHOUT_FLUSH_WAIT}
  WHERE d.ctid = ANY (ARRAY(SELECT ctid FROM due)) AND e.seq = d.event_seq AND en.id = d.endpoint_id
  RETURNING e.event_id AS "eventId", d.endpoint_id AS "endpointId", d.round, e.seq, e.project_id AS "projectId", e.type, e.payload, e.test, e.created_at AS "createdAt",
    en.url, en.secret, en.previous_secret AS "previousSecret", coalesce(en.previous_secret_expires_at > now(), false) AS "previousLive", en.disabled_at AS "disabledAt", en.removed_at AS "removedAt",
    e.trace_context AS "traceContext"`;

export const leaseValues = (a: LeaseArgs): unknown[] => [
  a.limit,
  a.leaseSeconds,
  a.targets.map((t) => t.endpointId),
  a.targets.map((t) => t.room),
  a.targets.map((t) => t.projectId),
  a.targets.map((t) => t.allowance),
];

interface Log {
  warn(obj: object, msg: string): void;
}

/** What the lease loop asks of the table (src/webhooks/lease-loop.ts). */
export interface LeaseStore {
  /** LISTENs for due notifications, calling `onDue` on each, unless it listens already (polling covers a failure) */
  listen(onDue: () => void): Promise<void>;
  /** the endpoints with due first attempts, but those in `full` */
  due(full: string[]): Promise<DueEndpoint[]>;
  lease(args: LeaseArgs): Promise<LeasedDelivery[]>;
  /** makes a leased delivery due again (one the process could not take a slot for) */
  release(c: LeasedDelivery): Promise<void>;
  close(): void;
}

/**
 * The lease loop's statements, on a connection of its own that also LISTENs, prepared once there: a lease never
 * queues behind the attempts' own statements. Without that connection (lost, replaced on the next turn) they run on
 * the pool.
 */
export class PgLeaseStore implements LeaseStore {
  private listening?: { client: PoolClient; stop(err?: Error): void };

  constructor(
    private readonly db: Db,
    private readonly log: Log,
  ) {}

  async listen(onDue: () => void): Promise<void> {
    if (this.listening) return;
    try {
      const pool: Pool = poolOf(this.db);
      const client = await pool.connect();
      // Given back once, without our handlers: from then on the pool takes the connection's errors (a database that
      // ends it after close, say) and may lend it again, so an error must never release it a second time.
      let stopped = false;
      const stop = (err?: Error) => {
        if (stopped) return;
        stopped = true;
        if (this.listening?.client === client) this.listening = undefined;
        client.off('notification', onDue).off('error', lost);
        client.release(err);
      };
      const lost = (err: Error) => {
        this.log.warn({ err }, 'webhook LISTEN connection lost');
        stop(err);
      };
      client.on('notification', onDue).on('error', lost);
      this.listening = { client, stop };
      await client.query(`LISTEN ${DUE_CHANNEL}`).catch((err: Error) => {
        stop(err);
        throw err;
      });
    } catch (err) {
      this.log.warn({ err }, 'webhook LISTEN failed; polling');
    }
  }

  due(full: string[]): Promise<DueEndpoint[]> {
    return this.query<DueEndpoint>('webhook_due', DUE_SQL, [full]);
  }

  /** The lease's commit need not wait for the WAL flush: a lease lost in a database crash leaves the delivery due. */
  lease(args: LeaseArgs): Promise<LeasedDelivery[]> {
    return this.query<LeasedDelivery>('webhook_lease', LEASE_SQL, leaseValues(args), true);
  }

  async release(c: LeasedDelivery): Promise<void> {
    await this.db
      .query(
        `UPDATE webhook_deliveries d SET next_attempt_at = now() FROM webhook_events e
       WHERE e.event_id = $1 AND d.event_seq = e.seq AND d.endpoint_id = $2 AND d.round = $3 AND d.status = 'pending' AND d.workflow_id IS NULL`,
        [c.eventId, c.endpointId, c.round],
      )
      .catch((err) => this.log.warn({ err }, 'webhook lease release failed; left to its lease'));
  }

  close(): void {
    this.listening?.stop();
  }

  private async query<T>(name: string, text: string, values: unknown[], update = false): Promise<T[]> {
    const listener = this.listening?.client;
    if (listener) return (await listener.query<T & object>({ name, text, values })).rows;
    const result = await preparedQuery<T[] | [T[], number]>(this.db, text, values);
    return update ? (result as [T[], number])[0] : (result as T[]); // typeorm: [rows, count] for an UPDATE
  }
}
