import { MigrationInterface, QueryRunner } from 'typeorm';

export class Relayers1766173900000 implements MigrationInterface {
  name = 'Relayers1766173900000';

  async up(q: QueryRunner): Promise<void> {
    // Keys the operator issues to relayers (`npm run cli -- relayers add NAME`), stored as SHA-256 hashes like API keys.
    await q.query(`CREATE TABLE relayer_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL UNIQUE,
      key_hash text NOT NULL UNIQUE,
      key_prefix text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz)`);
    // The order feed pages open intents by the transaction that accepted them: a page holds only transactions below
    // every one still running (pg_snapshot_xmin), so a submit that commits late is never behind a relayer's cursor.
    await q.query('ALTER TABLE intents ADD COLUMN opened_xid xid8 NOT NULL DEFAULT pg_current_xact_id()');
    await q.query("CREATE INDEX intents_open_feed ON intents (opened_xid, id) WHERE status = 'PENDING'");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX intents_open_feed');
    await q.query('ALTER TABLE intents DROP COLUMN opened_xid');
    await q.query('DROP TABLE relayer_keys');
  }
}
