import { MigrationInterface, QueryRunner } from 'typeorm';

export class GoneHolds1766173770000 implements MigrationInterface {
  name = 'GoneHolds1766173770000';

  async up(q: QueryRunner): Promise<void> {
    // The block of the snapshot a reservation was checked against: only a newer snapshot showing less than it holds
    // proves its funds left the account since (none for reservations made before, which are never judged so).
    await q.query('ALTER TABLE reservations ADD COLUMN basis_block bigint');
    // Released because its funds left the account, not by a claim or at `expires`: a session intent's such
    // reservation counts as spent in the project's deposit credit (src/deposits/credit-store.ts).
    await q.query('ALTER TABLE reservations ADD COLUMN released_gone boolean NOT NULL DEFAULT false');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE reservations DROP COLUMN released_gone');
    await q.query('ALTER TABLE reservations DROP COLUMN basis_block');
  }
}
