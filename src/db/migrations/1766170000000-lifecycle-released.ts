import { MigrationInterface, QueryRunner } from 'typeorm';

export class LifecycleReleased1766170000000 implements MigrationInterface {
  name = 'LifecycleReleased1766170000000';

  async up(q: QueryRunner): Promise<void> {
    // When the lifecycle handed what no claim spent back to the ledger at `expires` (src/intents/store.ts): its end,
    // unless it COMPLETED. Its RELEASED report is sent once, and nothing is written or retried for it afterwards.
    for (const [table, kind] of [
      ['intents', 'intent'],
      ['bundles', 'bundle'],
    ]) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN released_at timestamptz`);
      // Lifecycles that released before this column: past `expires`, every reservation released or marked to be.
      await q.query(
        `UPDATE ${table} x SET released_at = now() FROM quotes q
         WHERE q.nonce = x.id AND x.status <> 'COMPLETED' AND (q.operation->>'expires')::bigint < extract(epoch FROM now())
           AND NOT EXISTS (SELECT 1 FROM reservations r WHERE r.owner_kind = $1 AND r.owner_id = x.id::text
                           AND r.released_at IS NULL AND r.release_after_block IS NULL AND r.release_after_time IS NULL)`,
        [kind],
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE intents DROP COLUMN released_at');
    await q.query('ALTER TABLE bundles DROP COLUMN released_at');
  }
}
