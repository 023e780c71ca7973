import { MigrationInterface, QueryRunner } from 'typeorm';

export class QuotePlans1766174000000 implements MigrationInterface {
  name = 'QuotePlans1766174000000';

  async up(q: QueryRunner): Promise<void> {
    // What a fill or a claim is judged against (quotedPlans), kept beside the operation: a batch of fills reads hundreds
    // of quotes, and each operation is stored compressed (out of line when large), so reading its mandate costs far
    // more than reading these. Generated, so they always say what the operation says.
    await q.query(`ALTER TABLE quotes
      ADD COLUMN plan_origin_chain_ids jsonb GENERATED ALWAYS AS (jsonb_path_query_array(operation, '$.elements[*].chainId')) STORED,
      ADD COLUMN plan_destination_chain_id text GENERATED ALWAYS AS (operation #>> '{elements,0,mandate,destinationChainId}') STORED,
      ADD COLUMN plan_recipient text GENERATED ALWAYS AS (operation #>> '{elements,0,mandate,recipient}') STORED,
      ADD COLUMN plan_token_out jsonb GENERATED ALWAYS AS (operation #> '{elements,0,mandate,tokenOut}') STORED`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE quotes DROP COLUMN plan_origin_chain_ids, DROP COLUMN plan_destination_chain_id,
      DROP COLUMN plan_recipient, DROP COLUMN plan_token_out`);
  }
}
