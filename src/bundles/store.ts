import type { DataSource } from 'typeorm';
import { InsufficientBalance, reserve, type Reservation } from '../ledger/ledger';
import { queueStart, type QueuedStart } from '../outbox/outbox';
import { proveAccount } from '../projects/accounts';
import type { IntentOp } from '../intents/types';
import type { IntentStatus } from '../../workflows/intent-state';
import { lifecycleOf } from '../intents/store';
import type { SignedOrderBundle } from './order-bundle';
import { pendingBundleEvent } from './presenter';

/** A submit the ledger or the path's lifetime refuses; nothing was changed. */
export class BundleRefused extends Error {
  constructor(message: string, readonly pathGone = false) {
    super(message);
  }
}

export interface VerifiedBundle { id: string; signed: SignedOrderBundle }
export interface AcceptedBundle { id: string; status: IntentStatus; start?: QueuedStart }

/**
 * Records verified bundles of one request in one transaction, all or none: per bundle the reservation of what its
 * path spends on the shared ledger (the same one intents and withdrawals reserve on), the bundle, the event relayers
 * page through, and the queued start of its lifecycle. A bundle already recorded returns its status (and its queued
 * start while that has not been performed), so resubmitting is idempotent.
 */
export async function acceptBundles(db: DataSource, projectId: string, bundles: VerifiedBundle[], fillGraceSeconds: number): Promise<AcceptedBundle[]> {
  return db.transaction(async (tx) => {
    const accepted: AcceptedBundle[] = [];
    for (const { id, signed } of bundles) {
      const quote: { account: string; operation: IntentOp; reservations: Reservation[]; expired: boolean }[] = await tx.query(
        'SELECT account, operation, reservations, expires_at < now() AS expired FROM quotes WHERE nonce = $1 AND project_id = $2 FOR UPDATE',
        [id, projectId],
      );
      if (!quote.length) throw new BundleRefused(`Bundle ${id} not found`, true);
      // A quote is spent once: one accepted as an alps intent is no bundle (checked under the row lock).
      if ((await tx.query('SELECT 1 FROM intents WHERE id = $1', [id])).length) throw new BundleRefused(`Bundle ${id} not found`, true);
      const { account, operation, reservations, expired } = quote[0];
      const { start, originChainIds, destinationChainId: targetChainId, fillDeadline } = lifecycleOf('bundle', id, account, projectId, operation, fillGraceSeconds);
      const existing: { status: IntentStatus; queued: boolean }[] = await tx.query(
        'SELECT b.status, EXISTS (SELECT 1 FROM workflow_outbox o WHERE o.workflow_id = $2) AS queued FROM bundles b WHERE b.id = $1',
        [id, start.workflowId],
      );
      if (existing.length) {
        accepted.push({ id, status: existing[0].status, ...(existing[0].queued ? { start } : {}) });
        continue;
      }
      if (expired) throw new BundleRefused(`Bundle ${id} expired`, true);
      try {
        await reserve(tx, { kind: 'bundle', id }, account, reservations);
      } catch (e) {
        if (e instanceof InsufficientBalance) throw new BundleRefused(e.message);
        throw e;
      }
      await tx.query(
        `INSERT INTO bundles (id, project_id, account, status, target_chain_id, origin_chain_ids, fill_deadline, signed_bundle, history)
         VALUES ($1, $2, $3, 'PENDING', $4, $5, $6, $7, jsonb_build_array(jsonb_build_object('status', 'PENDING', 'at', now())))`,
        [id, projectId, account, targetChainId, originChainIds, fillDeadline, signed],
      );
      await tx.query(
        'INSERT INTO bundle_events (project_id, bundle_id, type, payload) VALUES ($1, $2, $3, $4)',
        [projectId, id, 'PendingBundle', pendingBundleEvent(id, signed, Math.floor(Date.now() / 1000))],
      );
      // A signed bundle proves the account to the project, as a signed intent does.
      await proveAccount(tx, projectId, account, 'intent');
      await queueStart(tx, start);
      accepted.push({ id, status: 'PENDING', start });
    }
    return accepted;
  });
}
