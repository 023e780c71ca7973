import { MigrationInterface, QueryRunner } from 'typeorm';

export class DepositCredit1766100000000 implements MigrationInterface {
  name = 'DepositCredit1766100000000';

  async up(q: QueryRunner): Promise<void> {
    // How a refunded deposit went back: by the processor's refund intent (which the credit subtracts as spent), or by
    // a transfer made outside (the deposit then counts for nothing in the credit, src/deposits/credit-store.ts).
    await q.query("ALTER TABLE deposits ADD COLUMN refunded_by text CHECK (refunded_by IN ('intent', 'transfer'))");
    await q.query(`UPDATE deposits d SET refunded_by = CASE WHEN EXISTS (SELECT 1 FROM intents i WHERE i.id = d.refund_intent_id
        AND (i.fill->>'transactionHash' = d.refund_tx_hash OR EXISTS (SELECT 1 FROM jsonb_each(i.claims) c WHERE c.value->>'transactionHash' = d.refund_tx_hash)))
      THEN 'intent' ELSE 'transfer' END WHERE stage = 'refunded'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE deposits DROP COLUMN refunded_by');
  }
}
