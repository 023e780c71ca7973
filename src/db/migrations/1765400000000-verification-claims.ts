import { MigrationInterface, QueryRunner } from 'typeorm';

export class VerificationClaims1765400000000 implements MigrationInterface {
  name = 'VerificationClaims1765400000000';

  async up(q: QueryRunner): Promise<void> {
    // Who may open a customer's applicant at the provider right now (src/compliance/store.ts claimApplicantCreation):
    // the provider is called holding this row, never a lock or a pooled connection.
    await q.query(`CREATE TABLE verification_claims (
      project_id uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      customer_id text NOT NULL,
      currency text NOT NULL,
      claim_id uuid NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, customer_id, currency))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE verification_claims');
  }
}
