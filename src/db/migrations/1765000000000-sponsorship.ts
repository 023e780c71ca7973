import { MigrationInterface, QueryRunner } from 'typeorm';

export class Sponsorship1765000000000 implements MigrationInterface {
  name = 'Sponsorship1765000000000';

  async up(q: QueryRunner): Promise<void> {
    // Fee sponsorship is an entitlement the operator grants a project (`npm run cli -- projects sponsorship`).
    await q.query('ALTER TABLE projects ADD COLUMN sponsorship boolean NOT NULL DEFAULT false');
    // What a quote's sponsor covers ({usd, tokens}), recorded as sponsored once the quote is submitted.
    await q.query('ALTER TABLE quotes ADD COLUMN sponsored jsonb');
    await q.query(`CREATE TABLE sponsored_intents (
      intent_id numeric(78,0) PRIMARY KEY REFERENCES intents(id),
      project_id uuid NOT NULL REFERENCES projects(id),
      usd numeric NOT NULL,
      tokens jsonb NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query('CREATE INDEX sponsored_intents_project ON sponsored_intents (project_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE sponsored_intents');
    await q.query('ALTER TABLE quotes DROP COLUMN sponsored');
    await q.query('ALTER TABLE projects DROP COLUMN sponsorship');
  }
}
