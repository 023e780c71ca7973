import { MigrationInterface, QueryRunner } from 'typeorm';

export class SnapshotClock1766100000006 implements MigrationInterface {
  name = 'SnapshotClock1766100000006';

  async up(q: QueryRunner): Promise<void> {
    // The block whose timestamp `block_timestamp` is (it may be an earlier snapshot's, kept as a lower bound): with it
    // each row is one exact (block, timestamp) pair of its chain, against which a new snapshot's timestamp is checked
    // (src/ingestion/screen.ts reads the nearest pairs below and above its block). Null on rows stored before: unknown.
    for (const table of ['wallet_balances', 'lock_balances']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN timestamp_block bigint`);
      await q.query(`CREATE INDEX ${table}_clock ON ${table} (chain_id, timestamp_block, block_timestamp)`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['wallet_balances', 'lock_balances']) {
      await q.query(`DROP INDEX ${table}_clock`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN timestamp_block`);
    }
  }
}
