import { MigrationInterface, QueryRunner } from 'typeorm';

export class Bundles1764700000000 implements MigrationInterface {
  name = 'Bundles1764700000000';

  async up(q: QueryRunner): Promise<void> {
    // Legacy (0.5.x) order bundles: a bundle is the quote served by /bundles/path, signed; its id is the quote's
    // nonce. The transition columns match `intents`, so both lifecycles persist through one recordTransition.
    await q.query(`CREATE TABLE bundles (
      id numeric(78,0) PRIMARY KEY REFERENCES quotes(nonce),
      project_id uuid NOT NULL,
      account text NOT NULL,
      status text NOT NULL,
      target_chain_id bigint NOT NULL,
      origin_chain_ids bigint[] NOT NULL,
      fill_deadline bigint NOT NULL,
      signed_bundle jsonb NOT NULL,
      fill jsonb,
      claims jsonb NOT NULL DEFAULT '{}',
      history jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query('CREATE INDEX bundles_account ON bundles (account, created_at DESC)');
    // What relayers page through (GET /bundles/events): one row per accepted bundle, in acceptance order.
    await q.query(`CREATE TABLE bundle_events (
      id bigserial PRIMARY KEY,
      project_id uuid NOT NULL,
      bundle_id numeric(78,0) NOT NULL REFERENCES bundles(id),
      type text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query('CREATE INDEX bundle_events_project ON bundle_events (project_id, id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE bundle_events, bundles');
  }
}
