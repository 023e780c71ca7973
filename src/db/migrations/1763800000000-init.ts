import { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE projects (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE TABLE api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      key_hash text NOT NULL UNIQUE,
      key_prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz)`);
    await q.query(`CREATE TABLE indexer_events (
      id text PRIMARY KEY,
      type text NOT NULL,
      payload jsonb NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE TABLE wallet_balances (
      chain_id bigint NOT NULL,
      account text NOT NULL,
      token text NOT NULL,
      amount numeric(78,0) NOT NULL CHECK (amount >= 0),
      block_number bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account, chain_id, token))`);
    await q.query(`CREATE TABLE lock_balances (
      chain_id bigint NOT NULL,
      account text NOT NULL,
      token text NOT NULL,
      lock_tag text NOT NULL,
      amount numeric(78,0) NOT NULL CHECK (amount >= 0),
      block_number bigint NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account, chain_id, token, lock_tag))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE lock_balances, wallet_balances, indexer_events, api_keys, projects');
  }
}
