import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1764200000000 implements MigrationInterface {
  name = 'Webhooks1764200000000';

  async up(q: QueryRunner): Promise<void> {
    // A project's receivers. Removed endpoints stay (removed_at) so past attempts keep their endpoint.
    await q.query(`CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      url text NOT NULL,
      types text[],
      secret text NOT NULL,
      previous_secret text,
      previous_secret_expires_at timestamptz,
      failing_since timestamptz,
      disabled_at timestamptz,
      disabled_reason text,
      removed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
    await q.query('CREATE INDEX webhook_endpoints_project ON webhook_endpoints (project_id) WHERE removed_at IS NULL');
    // One row per logical event; seq orders the listing and backs its cursor, event_id is the public id and webhook-id.
    await q.query(`CREATE TABLE webhook_events (
      seq bigserial PRIMARY KEY,
      event_id text NOT NULL UNIQUE,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      idempotency_key text NOT NULL,
      type text NOT NULL,
      deposit_id text,
      payload jsonb NOT NULL,
      test boolean NOT NULL DEFAULT false,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      round integer NOT NULL DEFAULT 1,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, idempotency_key))`);
    await q.query('CREATE INDEX webhook_events_listing ON webhook_events (project_id, seq DESC)');
    await q.query(
      "CREATE INDEX webhook_events_failed ON webhook_events (project_id, created_at) WHERE status = 'failed'",
    );
    // An event's delivery to one endpoint in its current round.
    await q.query(`CREATE TABLE webhook_deliveries (
      event_seq bigint NOT NULL REFERENCES webhook_events(seq) ON DELETE CASCADE,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      round integer NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      delivered_at timestamptz,
      last_error text,
      PRIMARY KEY (event_seq, endpoint_id))`);
    // Every attempt, keyed so a retried activity records its attempt once.
    await q.query(`CREATE TABLE webhook_attempts (
      event_seq bigint NOT NULL REFERENCES webhook_events(seq) ON DELETE CASCADE,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      round integer NOT NULL,
      attempt integer NOT NULL,
      attempted_at timestamptz NOT NULL,
      status_code integer,
      latency_ms integer NOT NULL,
      response_body text,
      error text,
      PRIMARY KEY (event_seq, endpoint_id, round, attempt))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_attempts, webhook_deliveries, webhook_events, webhook_endpoints');
  }
}
