import { MigrationInterface, QueryRunner } from 'typeorm';

export class ChainHolds1766173500000 implements MigrationInterface {
  name = 'ChainHolds1766173500000';

  async up(q: QueryRunner): Promise<void> {
    // The chain indexer asks, for every range of a chain, which holds there are past `expires` and which wallet
    // funds Permit2-funded intents hold: by chain, among the active holds only.
    await q.query(
      'CREATE INDEX reservations_chain_active ON reservations (chain_id, lock_tag) WHERE released_at IS NULL AND release_after_block IS NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX reservations_chain_active');
  }
}
