import { MigrationInterface, QueryRunner } from 'typeorm';

export class RouteGroups1764800000000 implements MigrationInterface {
  name = 'RouteGroups1764800000000';

  async up(q: QueryRunner): Promise<void> {
    // The routes of one blanc quote are alternatives: once one is submitted, its siblings are refused.
    await q.query('ALTER TABLE quotes ADD COLUMN route_group uuid');
    await q.query('CREATE INDEX quotes_route_group ON quotes (route_group) WHERE route_group IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE quotes DROP COLUMN route_group');
  }
}
