import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { InsufficientBalance, release, reserve } from '../ledger/ledger';
import { isTerminal, type IntentEvent, type IntentStatus } from '../../workflows/intent-state';
import type { Acceptance, Submission } from './types';

const owner = (id: string) => ({ kind: 'intent', id });

/**
 * Records a verified submission and reserves what it spends, in one transaction: either the intent exists with
 * its reservations, or nothing changed. Running it again for the same id returns the recorded state.
 */
export async function acceptIntent(db: DataSource, id: string, submission: Submission): Promise<Acceptance> {
  return db.transaction(async (tx) => {
    const quote: { account: string; operation: { elements: { chainId: string; mandate: { destinationChainId: string; fillDeadline: string } }[] }; reservations: { chainId: number; token: string; lockTag: string; amount: string }[]; expired: boolean }[] =
      await tx.query('SELECT account, operation, reservations, expires_at < now() AS expired FROM quotes WHERE nonce = $1 FOR UPDATE', [id]);
    if (!quote.length) throw ApplicationFailure.nonRetryable('Quote not found', 'Rejected');
    const { account, operation, reservations, expired } = quote[0];
    const originChainIds = [...new Set(operation.elements.map((e) => Number(e.chainId)))];
    const fillDeadline = Number(operation.elements[0].mandate.fillDeadline);
    const msUntilFillDeadline = fillDeadline * 1000 - Date.now();

    const existing: { status: IntentStatus }[] = await tx.query('SELECT status FROM intents WHERE id = $1', [id]);
    if (existing.length) return { status: existing[0].status, created: false, originChainIds, msUntilFillDeadline };
    if (expired) throw ApplicationFailure.nonRetryable('Quote expired', 'Rejected');
    try {
      await reserve(tx, owner(id), account, reservations);
    } catch (e) {
      if (e instanceof InsufficientBalance) throw ApplicationFailure.nonRetryable(e.message, 'Rejected');
      throw e;
    }
    await tx.query(
      `INSERT INTO intents (id, account, status, destination_chain_id, origin_chain_ids, fill_deadline, operation, signatures, history)
       VALUES ($1, $2, 'PENDING', $3, $4, $5, $6, $7, jsonb_build_array(jsonb_build_object('status', 'PENDING', 'at', now())))`,
      [id, account, Number(operation.elements[0].mandate.destinationChainId), originChainIds, fillDeadline, operation, submission],
    );
    return { status: 'PENDING', created: true, originChainIds, msUntilFillDeadline };
  });
}

/**
 * Persists a transition: the event (if any), the status it leads to and, for a terminal status, the release of
 * every reservation the intent held, in one transaction. Safe to repeat (first fill and first claim per chain win).
 */
export async function recordTransition(db: DataSource, id: string, status: IntentStatus, event?: IntentEvent): Promise<void> {
  const tx = event && 'transactionHash' in event ? { chainId: event.chainId, transactionHash: event.transactionHash, timestamp: event.timestamp } : null;
  await db.transaction(async (m) => {
    await m.query(
      `UPDATE intents SET
         fill = CASE WHEN $2 = 'fill' THEN coalesce(fill, $3::jsonb) ELSE fill END,
         claims = CASE WHEN $2 = 'claim' AND NOT claims ? $4 THEN claims || jsonb_build_object($4, $3::jsonb) ELSE claims END,
         history = CASE WHEN status IS DISTINCT FROM $5
           THEN history || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('status', $5::text, 'event', $6::jsonb, 'at', now())))
           ELSE history END,
         status = $5,
         updated_at = now()
       WHERE id = $1`,
      [id, event?.type ?? null, tx ? JSON.stringify(tx) : null, String(event?.chainId ?? ''), status, event ? JSON.stringify(event) : null],
    );
    if (isTerminal(status)) await release(m, owner(id));
  });
}
