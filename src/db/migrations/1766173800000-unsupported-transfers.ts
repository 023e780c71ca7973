import { MigrationInterface, QueryRunner } from 'typeorm';

export class UnsupportedTransfers1766173800000 implements MigrationInterface {
  name = 'UnsupportedTransfers1766173800000';

  async up(q: QueryRunner): Promise<void> {
    // Transfers of tokens the service does not support into a deposit account, counted per account and period: the
    // first of a period is recorded (a rejected deposit, TOKEN-1), the rest only counted, so a contract that emits
    // thousands of Transfer logs makes no workflow and no webhook each.
    await q.query(`CREATE TABLE unsupported_transfers (
      account text NOT NULL,
      period_start timestamptz NOT NULL,
      transfers bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (account, period_start))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE unsupported_transfers');
  }
}
