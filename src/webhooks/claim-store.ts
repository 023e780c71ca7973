import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { DataSource } from 'typeorm';
import type { PoolClient, Pool } from 'pg';
import type { Claim } from './deliver';
import { preparedQuery } from '../db/prepared';
import { CLAIM_SQL, claimValues, DUE_SQL, type ClaimArgs, type DueEndpoint } from './claims';

/** The channel a recorded delivery round notifies (with its transaction's commit), so a claim loop wakes at once. */
export const DUE_CHANNEL = 'webhook_due';

interface Log {
  warn(obj: object, msg: string): void;
}

/** What the claim loop asks of the table (src/webhooks/claimer.ts). */
export interface ClaimStore {
  /** LISTENs for due notifications, calling `onDue` on each, unless it listens already (polling covers a failure) */
  listen(onDue: () => void): Promise<void>;
  /** the endpoints with due first attempts, but those in `full` */
  due(full: string[]): Promise<DueEndpoint[]>;
  claim(args: ClaimArgs): Promise<Claim[]>;
  /** makes a claimed delivery due again (one the process could not take a slot for) */
  release(c: Claim): Promise<void>;
  close(): void;
}

/**
 * The claim loop's statements, on a connection of its own that also LISTENs, prepared once there: a claim never
 * queues behind the attempts' own statements. Without that connection (lost, replaced on the next turn) they run on
 * the pool.
 */
export class PgClaimStore implements ClaimStore {
  private listener?: PoolClient;

  constructor(
    private readonly db: DataSource,
    private readonly log: Log,
  ) {}

  async listen(onDue: () => void): Promise<void> {
    if (this.listener) return;
    try {
      const pool: Pool = (this.db.driver as PostgresDriver).master;
      const client = await pool.connect();
      client.on('notification', onDue);
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

  due(full: string[]): Promise<DueEndpoint[]> {
    return this.query<DueEndpoint>('webhook_due', DUE_SQL, [full]);
  }

  /** The claim's commit need not wait for the WAL flush: a lease lost in a database crash leaves the delivery due. */
  claim(args: ClaimArgs): Promise<Claim[]> {
    return this.query<Claim>('webhook_claim', CLAIM_SQL, claimValues(args), true);
  }

  async release(c: Claim): Promise<void> {
    await this.db
      .query(
        `UPDATE webhook_deliveries d SET next_attempt_at = now() FROM webhook_events e
       WHERE e.event_id = $1 AND d.event_seq = e.seq AND d.endpoint_id = $2 AND d.round = $3 AND d.status = 'pending' AND d.workflow_id IS NULL`,
        [c.eventId, c.endpointId, c.round],
      )
      .catch((err) => this.log.warn({ err }, 'webhook claim release failed; left to its lease'));
  }

  close(): void {
    this.listener?.release();
  }

  private async query<T>(name: string, text: string, values: unknown[], update = false): Promise<T[]> {
    if (this.listener) return (await this.listener.query<T & object>({ name, text, values })).rows;
    const result = await preparedQuery<T[] | [T[], number]>(this.db, text, values);
    return update ? (result as [T[], number])[0] : (result as T[]); // typeorm: [rows, count] for an UPDATE
  }
}
