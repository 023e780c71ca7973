import { MigrationInterface, QueryRunner } from 'typeorm';

export class Compliance1764300000000 implements MigrationInterface {
  name = 'Compliance1764300000000';

  async up(q: QueryRunner): Promise<void> {
    // Browser sessions minted for a project's customer: the bearer's jti, so a session can be revoked.
    await q.query(`CREATE TABLE compliance_sessions (
      id uuid PRIMARY KEY,
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      customer_id text NOT NULL,
      account text,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now())`);
    // A project's customers; an account belongs to the first customer that named it (the canonical binding).
    await q.query(`CREATE TABLE compliance_customers (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      customer_id text NOT NULL,
      account text,
      email text,
      country text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, customer_id))`);
    await q.query(
      'CREATE UNIQUE INDEX compliance_customers_account ON compliance_customers (project_id, account) WHERE account IS NOT NULL',
    );
    // One verification per customer and currency; status as the lifecycle workflow last recorded it.
    await q.query(`CREATE TABLE verifications (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      customer_id text NOT NULL,
      currency text NOT NULL CHECK (currency IN ('EUR', 'USD')),
      provider text NOT NULL,
      applicant_id text NOT NULL,
      status text NOT NULL CHECK (status IN ('needs_input', 'in_review', 'approved', 'declined')),
      stale_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (project_id, customer_id, currency),
      UNIQUE (provider, applicant_id))`);
    // Provider callbacks, once each (providers retry and may reorder).
    await q.query(`CREATE TABLE verification_callbacks (
      provider text NOT NULL,
      event_id text NOT NULL,
      verification_id uuid NOT NULL REFERENCES verifications(id) ON DELETE CASCADE,
      state text NOT NULL,
      occurred_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (provider, event_id))`);
    // The sandbox provider's own records (a stand-in for the provider's database).
    await q.query(`CREATE TABLE sandbox_applicants (
      id text PRIMARY KEY,
      reference text NOT NULL UNIQUE,
      state text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now())`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'DROP TABLE sandbox_applicants, verification_callbacks, verifications, compliance_customers, compliance_sessions',
    );
  }
}
