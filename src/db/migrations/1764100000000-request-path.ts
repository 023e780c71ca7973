import { MigrationInterface, QueryRunner } from 'typeorm';

export class RequestPath1764100000000 implements MigrationInterface {
  name = 'RequestPath1764100000000';

  async up(q: QueryRunner): Promise<void> {
    // The transactional outbox (src/outbox/outbox.ts): starts and signals recorded with the state change they follow.
    await q.query(`CREATE TABLE workflow_outbox (
      workflow_id text PRIMARY KEY,
      workflow_type text NOT NULL,
      args jsonb NOT NULL,
      search_attributes jsonb NOT NULL,
      summary text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE TABLE signal_outbox (
      id bigserial PRIMARY KEY,
      workflow_id text NOT NULL,
      signal text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    // A claimed reservation stays until a balance snapshot at or after the claim's block shows the funds gone.
    await q.query('ALTER TABLE reservations ADD COLUMN release_after_block bigint');
    await q.query(
      'CREATE INDEX reservations_settling ON reservations (account, chain_id) WHERE released_at IS NULL AND release_after_block IS NOT NULL',
    );
    // Accounts that proved themselves to a project (a signed intent, a signed withdrawal request, or the operator).
    await q.query(`CREATE TABLE project_accounts (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      account text NOT NULL,
      proof text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, account))`);
    // A signed withdrawal request authorizes one allocation only.
    await q.query('ALTER TABLE withdrawals ADD COLUMN request_digest text UNIQUE');
    await q.query("CREATE INDEX withdrawals_outstanding ON withdrawals (account) WHERE status = 'ALLOCATED'");
    // Forced withdrawals by lock (tag and token, split from the id) so intents skip such locks; ordered by block. No
    // release recorded forced withdrawals before this: there are no rows to split.
    await q.query(
      'ALTER TABLE forced_withdrawals ADD COLUMN lock_tag text, ADD COLUMN token text, ADD COLUMN block_number bigint NOT NULL DEFAULT 0',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE forced_withdrawals DROP COLUMN lock_tag, DROP COLUMN token, DROP COLUMN block_number');
    await q.query('DROP INDEX withdrawals_outstanding');
    await q.query('ALTER TABLE withdrawals DROP COLUMN request_digest');
    await q.query('DROP TABLE project_accounts');
    await q.query('DROP INDEX reservations_settling');
    await q.query('ALTER TABLE reservations DROP COLUMN release_after_block');
    await q.query('DROP TABLE signal_outbox, workflow_outbox');
  }
}
