import { MigrationInterface, QueryRunner } from 'typeorm';

export class Deposits1764600000000 implements MigrationInterface {
  name = 'Deposits1764600000000';

  async up(q: QueryRunner): Promise<void> {
    // Deposit accounts belong to the project that registered them; `session_signer` is the processor's signer that
    // moves their funds (managed accounts cover every chain, the others one session per chain in deposit_sessions).
    await q.query(`CREATE TABLE deposit_accounts (
      address text PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      owner text NOT NULL,
      owner_type text NOT NULL CHECK (owner_type IN ('EOA', 'smartAccount')),
      managed boolean NOT NULL,
      session_signer text NOT NULL,
      target_chain_id bigint NOT NULL,
      target_token text NOT NULL,
      recipient text NOT NULL,
      require_compliance boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query('CREATE INDEX deposit_accounts_project ON deposit_accounts (project_id, created_at)');
    await q.query(`CREATE TABLE deposit_sessions (
      account text NOT NULL REFERENCES deposit_accounts(address) ON DELETE CASCADE,
      chain_id bigint NOT NULL,
      session_digest text NOT NULL,
      signature text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account, chain_id))`);
    // One row per transfer (chain, tx, log index): a transfer reported twice is one deposit.
    await q.query(`CREATE TABLE deposits (
      id bigserial PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      account text NOT NULL REFERENCES deposit_accounts(address) ON DELETE CASCADE,
      chain_id bigint NOT NULL,
      tx_hash text NOT NULL,
      log_index integer NOT NULL,
      token text NOT NULL,
      amount numeric(78,0) NOT NULL,
      sender text NOT NULL,
      block_number bigint NOT NULL,
      target_chain_id bigint NOT NULL,
      target_token text NOT NULL,
      recipient text NOT NULL,
      stage text NOT NULL DEFAULT 'received'
        CHECK (stage IN ('received', 'bridging', 'completed', 'rejected', 'refunding', 'refunded')),
      error_code text,
      attempts integer NOT NULL DEFAULT 0,
      intent_id numeric(78,0),
      settlement_layer text,
      source_tx_hash text,
      destination_tx_hash text,
      source_amount numeric(78,0),
      destination_amount numeric(78,0),
      refund_recipient text,
      refund_attempts integer NOT NULL DEFAULT 0,
      refund_intent_id numeric(78,0),
      refund_tx_hash text,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      UNIQUE (chain_id, tx_hash, log_index))`);
    await q.query('CREATE INDEX deposits_project ON deposits (project_id, id DESC)');
    await q.query('CREATE INDEX deposits_tx ON deposits (tx_hash)');
    await q.query('CREATE INDEX deposits_account ON deposits (account, id DESC)');
    await q.query('CREATE UNIQUE INDEX deposits_intent ON deposits (intent_id) WHERE intent_id IS NOT NULL');
    await q.query(
      'CREATE UNIQUE INDEX deposits_refund_intent ON deposits (refund_intent_id) WHERE refund_intent_id IS NOT NULL',
    );
    // Awaiting their refund transfer: matched by the indexer's report of it (account, chain, token, recipient).
    await q.query("CREATE INDEX deposits_refunding ON deposits (account, chain_id, token) WHERE stage = 'refunding'");

    // Owner-authorized withdrawals (POST /safe/withdraw): one per owner nonce, with the intent that carries it out.
    await q.query(`CREATE TABLE deposit_withdrawals (
      account text NOT NULL REFERENCES deposit_accounts(address) ON DELETE CASCADE,
      nonce numeric(78,0) NOT NULL,
      request jsonb NOT NULL,
      intent_id numeric(78,0),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account, nonce))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE deposit_withdrawals');
    await q.query('DROP TABLE deposits');
    await q.query('DROP TABLE deposit_sessions');
    await q.query('DROP TABLE deposit_accounts');
  }
}
