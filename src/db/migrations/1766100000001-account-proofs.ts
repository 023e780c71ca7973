import { MigrationInterface, QueryRunner } from 'typeorm';

export class AccountProofs1766100000001 implements MigrationInterface {
  name = 'AccountProofs1766100000001';

  async up(q: QueryRunner): Promise<void> {
    // The highest nonce an account signed a registration or a release with (for any project): each signature works
    // once, and never after a newer one (src/deposits/account-store.ts).
    await q.query(`CREATE TABLE deposit_account_nonces (
      address text PRIMARY KEY,
      nonce numeric(78,0) NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now())`);
    // The nonce of the signature that proved a registration; a released registration receives no deposits.
    await q.query(
      'ALTER TABLE deposit_accounts ADD COLUMN proven_nonce numeric(78,0), ADD COLUMN released_at timestamptz',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE deposit_accounts DROP COLUMN proven_nonce, DROP COLUMN released_at');
    await q.query('DROP TABLE deposit_account_nonces');
  }
}
