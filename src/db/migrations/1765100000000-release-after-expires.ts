import { MigrationInterface, QueryRunner } from 'typeorm';

export class ReleaseAfterExpires1765100000000 implements MigrationInterface {
  name = 'ReleaseAfterExpires1765100000000';

  async up(q: QueryRunner): Promise<void> {
    // The timestamp (unix seconds) of a snapshot's block, when the indexer reports it; else that of an earlier
    // snapshot of the key (a lower bound), or null. A reservation past `expires` is released once it is >= expires.
    await q.query('ALTER TABLE wallet_balances ADD COLUMN block_timestamp bigint');
    await q.query('ALTER TABLE lock_balances ADD COLUMN block_timestamp bigint');
    await q.query('ALTER TABLE reservations ADD COLUMN release_after_time bigint');
    await q.query(
      'CREATE INDEX reservations_expiring ON reservations (account, chain_id) WHERE released_at IS NULL AND release_after_time IS NOT NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX reservations_expiring');
    await q.query('ALTER TABLE reservations DROP COLUMN release_after_time');
    await q.query('ALTER TABLE lock_balances DROP COLUMN block_timestamp');
    await q.query('ALTER TABLE wallet_balances DROP COLUMN block_timestamp');
  }
}
