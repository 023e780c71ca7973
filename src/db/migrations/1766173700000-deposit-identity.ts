import { MigrationInterface, QueryRunner } from 'typeorm';

export class DepositIdentity1766173700000 implements MigrationInterface {
  name = 'DepositIdentity1766173700000';

  async up(q: QueryRunner): Promise<void> {
    // A transfer is one deposit by what it moved in its transaction, not by where its log sits: a reorg that mines the
    // same transaction again in another block gives it another log index. `occurrence` tells identical transfers of
    // one transaction apart (0, 1, … in log order). A voided deposit (its transaction dropped by a reorg) leaves the
    // identity free for the same transfer mined again later.
    await q.query('ALTER TABLE deposits ADD COLUMN occurrence integer NOT NULL DEFAULT 0');
    await q.query(`UPDATE deposits d SET occurrence = n.occurrence FROM (
        SELECT id, row_number() OVER (PARTITION BY chain_id, tx_hash, account, token, sender, amount ORDER BY log_index) - 1 AS occurrence
        FROM deposits) n
      WHERE d.id = n.id AND n.occurrence > 0`);
    await q.query('ALTER TABLE deposits DROP CONSTRAINT deposits_chain_id_tx_hash_log_index_key');
    await q.query('ALTER TABLE deposits DROP CONSTRAINT deposits_stage_check');
    await q.query(`ALTER TABLE deposits ADD CONSTRAINT deposits_stage_check
      CHECK (stage IN ('received', 'bridging', 'completed', 'rejected', 'refunding', 'refunded', 'voided'))`);
    await q.query(`CREATE UNIQUE INDEX deposits_transfer ON deposits (chain_id, tx_hash, account, token, sender, amount, occurrence)
      WHERE stage <> 'voided'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query("DELETE FROM deposits WHERE stage = 'voided'");
    await q.query('DROP INDEX deposits_transfer');
    await q.query('ALTER TABLE deposits DROP CONSTRAINT deposits_stage_check');
    await q.query(`ALTER TABLE deposits ADD CONSTRAINT deposits_stage_check
      CHECK (stage IN ('received', 'bridging', 'completed', 'rejected', 'refunding', 'refunded'))`);
    await q.query(
      'ALTER TABLE deposits ADD CONSTRAINT deposits_chain_id_tx_hash_log_index_key UNIQUE (chain_id, tx_hash, log_index)',
    );
    await q.query('ALTER TABLE deposits DROP COLUMN occurrence');
  }
}
