import { MigrationInterface, QueryRunner } from 'typeorm';

export class BoundedProofs1766100000002 implements MigrationInterface {
  name = 'BoundedProofs1766100000002';

  async up(q: QueryRunner): Promise<void> {
    // An account's signature proves it to a project for a while (the operator's registration has no end), and only
    // for the amounts it signed (src/projects/account-store.ts): proofs made before get the default 30 days from now.
    await q.query('ALTER TABLE project_accounts ADD COLUMN proven_until timestamptz');
    await q.query("UPDATE project_accounts SET proven_until = now() + interval '30 days' WHERE proof <> 'operator'");
    await q.query(`CREATE TABLE project_account_allowances (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      account text NOT NULL,
      chain_id bigint NOT NULL,
      token text NOT NULL,
      amount numeric(78,0) NOT NULL,
      PRIMARY KEY (project_id, account, chain_id, token))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE project_account_allowances');
    await q.query('ALTER TABLE project_accounts DROP COLUMN proven_until');
  }
}
