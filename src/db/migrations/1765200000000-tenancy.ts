import { MigrationInterface, QueryRunner } from 'typeorm';

export class Tenancy1765200000000 implements MigrationInterface {
  name = 'Tenancy1765200000000';

  async up(q: QueryRunner): Promise<void> {
    // The outstanding-withdrawal cap counts per (account, project) (src/withdrawals/allocate.ts).
    await q.query("CREATE INDEX withdrawals_outstanding_by_project ON withdrawals (account, project_id) WHERE status = 'ALLOCATED'");
    await q.query('DROP INDEX withdrawals_outstanding');
    // An intent signed by a project's session signer (the deposit processor) spends that project's deposit credit
    // (src/deposits/credit.ts) and proves nothing about the account.
    await q.query('ALTER TABLE intents ADD COLUMN signed_by_session boolean NOT NULL DEFAULT false');
    await q.query("CREATE INDEX deposits_delivered ON deposits (recipient, target_chain_id, target_token) WHERE stage = 'completed'");
    // POST /withdrawals with an Idempotency-Key: the key's request and the allocation it made, kept a day.
    await q.query(`CREATE TABLE withdrawal_idempotency_keys (
      project_id uuid NOT NULL,
      key text NOT NULL,
      request_hash text NOT NULL,
      nonce numeric(78,0) REFERENCES withdrawals(nonce),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, key))`);
    await q.query('CREATE INDEX withdrawal_idempotency_keys_age ON withdrawal_idempotency_keys (created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE withdrawal_idempotency_keys');
    await q.query('DROP INDEX deposits_delivered');
    await q.query('ALTER TABLE intents DROP COLUMN signed_by_session');
    await q.query("CREATE INDEX withdrawals_outstanding ON withdrawals (account) WHERE status = 'ALLOCATED'");
    await q.query('DROP INDEX withdrawals_outstanding_by_project');
  }
}
