import { MigrationInterface, QueryRunner } from 'typeorm';

export class UnconfirmedBalances1766173600000 implements MigrationInterface {
  name = 'UnconfirmedBalances1766173600000';

  async up(q: QueryRunner): Promise<void> {
    // Snapshots above a chain's confirmation depth, kept apart from the ledger's (wallet_balances, lock_balances): the
    // portfolio shows them, while every reservation, release and credit rests on confirmed snapshots only.
    await q.query(`CREATE TABLE unconfirmed_balances (
      account text NOT NULL,
      chain_id bigint NOT NULL,
      token text NOT NULL,
      lock_tag text NOT NULL,
      amount numeric(78,0) NOT NULL,
      block_number bigint NOT NULL,
      PRIMARY KEY (account, chain_id, token, lock_tag))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE unconfirmed_balances');
  }
}
