import { MigrationInterface, QueryRunner } from 'typeorm';

export class Withdrawals1764000000000 implements MigrationInterface {
  name = 'Withdrawals1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE withdrawals (
      nonce numeric(78,0) PRIMARY KEY REFERENCES allocator_nonces(nonce),
      project_id uuid,
      account text NOT NULL,
      chain_id bigint NOT NULL,
      kind text NOT NULL CHECK (kind IN ('single', 'batch')),
      response jsonb NOT NULL,
      status text NOT NULL DEFAULT 'ALLOCATED',
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE TABLE forced_withdrawals (
      chain_id bigint NOT NULL,
      account text NOT NULL,
      lock_id numeric(78,0) NOT NULL,
      status text NOT NULL CHECK (status IN ('disabled', 'pending', 'enabled')),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account, chain_id, lock_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE forced_withdrawals, withdrawals');
  }
}
