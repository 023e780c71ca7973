import { MigrationInterface, QueryRunner } from 'typeorm';

export class Tenancy1765200000000 implements MigrationInterface {
  name = 'Tenancy1765200000000';

  async up(q: QueryRunner): Promise<void> {
    // The outstanding-withdrawal cap counts per (account, project) (src/withdrawals/allocate.ts).
    await q.query(
      "CREATE INDEX withdrawals_outstanding_by_project ON withdrawals (account, project_id) WHERE status = 'ALLOCATED'",
    );
    await q.query('DROP INDEX withdrawals_outstanding');
    // An intent signed by a project's session signer (the deposit processor) spends that project's deposit credit
    // (src/deposits/credit-store.ts) and proves nothing about the account.
    await q.query('ALTER TABLE intents ADD COLUMN signed_by_session boolean NOT NULL DEFAULT false');
    await q.query(
      "CREATE INDEX deposits_delivered ON deposits (recipient, target_chain_id, target_token) WHERE stage = 'completed'",
    );
    // Several projects may register one address (registration proves nothing about who owns it): a registration is
    // (address, project), and its sessions, deposits and owner withdrawals are that registration's. The one carrying
    // the account's own signature (last, proven_at) receives its deposits, else the earliest.
    await q.query('ALTER TABLE deposit_sessions DROP CONSTRAINT deposit_sessions_account_fkey');
    await q.query('ALTER TABLE deposits DROP CONSTRAINT deposits_account_fkey');
    await q.query('ALTER TABLE deposit_withdrawals DROP CONSTRAINT deposit_withdrawals_account_fkey');
    await q.query(
      'ALTER TABLE deposit_accounts DROP CONSTRAINT deposit_accounts_pkey, ADD PRIMARY KEY (address, project_id)',
    );
    await q.query('ALTER TABLE deposit_accounts ADD COLUMN proven_at timestamptz');
    for (const table of ['deposit_sessions', 'deposit_withdrawals']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN project_id uuid`);
      await q.query(
        `UPDATE ${table} t SET project_id = a.project_id FROM deposit_accounts a WHERE a.address = t.account`,
      );
      await q.query(`ALTER TABLE ${table} ALTER COLUMN project_id SET NOT NULL`);
    }
    await q.query(
      'ALTER TABLE deposit_sessions DROP CONSTRAINT deposit_sessions_pkey, ADD PRIMARY KEY (account, project_id, chain_id)',
    );
    await q.query(
      'ALTER TABLE deposit_withdrawals DROP CONSTRAINT deposit_withdrawals_pkey, ADD PRIMARY KEY (account, project_id, nonce)',
    );
    for (const table of ['deposit_sessions', 'deposits', 'deposit_withdrawals']) {
      await q.query(
        `ALTER TABLE ${table} ADD FOREIGN KEY (account, project_id) REFERENCES deposit_accounts(address, project_id) ON DELETE CASCADE`,
      );
    }
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
    for (const table of ['deposit_sessions', 'deposits', 'deposit_withdrawals'])
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_account_project_id_fkey`);
    await q.query(
      'ALTER TABLE deposit_withdrawals DROP CONSTRAINT deposit_withdrawals_pkey, ADD PRIMARY KEY (account, nonce), DROP COLUMN project_id',
    );
    await q.query(
      'ALTER TABLE deposit_sessions DROP CONSTRAINT deposit_sessions_pkey, ADD PRIMARY KEY (account, chain_id), DROP COLUMN project_id',
    );
    await q.query(
      'ALTER TABLE deposit_accounts DROP COLUMN proven_at, DROP CONSTRAINT deposit_accounts_pkey, ADD PRIMARY KEY (address)',
    );
    for (const table of ['deposit_sessions', 'deposits', 'deposit_withdrawals']) {
      await q.query(
        `ALTER TABLE ${table} ADD FOREIGN KEY (account) REFERENCES deposit_accounts(address) ON DELETE CASCADE`,
      );
    }
    await q.query('DROP INDEX deposits_delivered');
    await q.query('ALTER TABLE intents DROP COLUMN signed_by_session');
    await q.query("CREATE INDEX withdrawals_outstanding ON withdrawals (account) WHERE status = 'ALLOCATED'");
    await q.query('DROP INDEX withdrawals_outstanding_by_project');
  }
}
