import { MigrationInterface, QueryRunner } from 'typeorm';

export class Intents1763900000000 implements MigrationInterface {
  name = 'Intents1763900000000';

  async up(q: QueryRunner): Promise<void> {
    // Allocator nonces: (sponsor << 96) | next value of this sequence, recorded before anything is signed.
    await q.query('CREATE SEQUENCE allocator_nonce_seq');
    await q.query(`CREATE TABLE allocator_nonces (
      nonce numeric(78,0) PRIMARY KEY,
      sponsor text NOT NULL,
      purpose text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE TABLE quotes (
      nonce numeric(78,0) PRIMARY KEY REFERENCES allocator_nonces(nonce),
      project_id uuid,
      account text NOT NULL,
      operation jsonb NOT NULL,
      cost jsonb NOT NULL,
      reservations jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL)`);
    await q.query(`CREATE TABLE intents (
      id numeric(78,0) PRIMARY KEY REFERENCES quotes(nonce),
      account text NOT NULL,
      status text NOT NULL,
      destination_chain_id bigint NOT NULL,
      origin_chain_ids bigint[] NOT NULL,
      fill_deadline bigint NOT NULL,
      operation jsonb NOT NULL,
      signatures jsonb NOT NULL,
      fill jsonb,
      claims jsonb NOT NULL DEFAULT '{}',
      history jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query('CREATE INDEX intents_account ON intents (account, created_at DESC)');
    // Amounts promised to intents and withdrawals; available = balance - active reservations on the same key.
    await q.query(`CREATE TABLE reservations (
      id bigserial PRIMARY KEY,
      owner_kind text NOT NULL,
      owner_id text NOT NULL,
      account text NOT NULL,
      chain_id bigint NOT NULL,
      token text NOT NULL,
      lock_tag text NOT NULL,
      amount numeric(78,0) NOT NULL CHECK (amount > 0),
      created_at timestamptz NOT NULL DEFAULT now(),
      released_at timestamptz)`);
    await q.query(
      'CREATE INDEX reservations_active ON reservations (account, chain_id, token, lock_tag) WHERE released_at IS NULL',
    );
    await q.query('CREATE INDEX reservations_owner ON reservations (owner_kind, owner_id)');
    await q.query(
      'CREATE TABLE prices (symbol text PRIMARY KEY, usd numeric NOT NULL CHECK (usd > 0), updated_at timestamptz NOT NULL DEFAULT now())',
    );
    await q.query(
      'CREATE TABLE gas_prices (chain_id bigint PRIMARY KEY, gas_price numeric(78,0) NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())',
    );
    await q.query(`CREATE TABLE relayer_liquidity (
      chain_id bigint NOT NULL,
      settlement_layer text NOT NULL,
      token text NOT NULL,
      amount numeric(78,0) NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (chain_id, settlement_layer, token))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE relayer_liquidity, gas_prices, prices, reservations, intents, quotes, allocator_nonces');
    await q.query('DROP SEQUENCE allocator_nonce_seq');
  }
}
