import type { Db, Tx } from '../db/types';
import { InsufficientBalance, reserve } from '../ledger/ledger';
import { queueStart, type QueuedStart } from '../outbox/store';
import { proveAccount } from '../projects/account-store';
import type { IntentStatus } from '../../workflows/intent-state';
import { lifecycleOf } from './lifecycle-kind';
import { type LockedQuote, lockQuote } from './quote-store';

/** A submit the ledger or the path's lifetime refuses; nothing was changed. */
export class BundleRefused extends Error {
  constructor(
    message: string,
    readonly pathGone = false,
  ) {
    super(message);
  }
}

/** A legacy host's signed order bundle, verified against its quote, and the event relayers page through once it is accepted. */
export interface VerifiedBundle {
  id: string;
  signed: object;
  pendingEvent: object;
}
export interface AcceptedBundle {
  id: string;
  status: IntentStatus;
  start?: QueuedStart;
}

/**
 * Records verified bundles of one request in one transaction, all or none: per bundle the reservation of what its
 * path spends on the shared ledger (the same one intents and withdrawals reserve on), the bundle, the event relayers
 * page through, and the queued start of its lifecycle; a signed bundle proves its account to the project, as a signed
 * intent does. A bundle already recorded returns its status (and its queued start while that has not been
 * performed), so resubmitting is idempotent. Locks follow the global order (src/ledger/ledger.ts): every quote (in
 * id order), then the accounts' (project, account) rows (in address order), then balance rows.
 */
export async function acceptBundles(
  db: Db,
  projectId: string,
  bundles: VerifiedBundle[],
  settings: { fillGraceSeconds: number; proofDays: number },
): Promise<AcceptedBundle[]> {
  return db.transaction(async (tx) => {
    const accepted: AcceptedBundle[] = [];
    const fresh: {
      id: string;
      signed: object;
      pendingEvent: object;
      quote: LockedQuote;
      lifecycle: ReturnType<typeof lifecycleOf>;
    }[] = [];
    // In id order, so two requests carrying the same bundles lock their quotes in the same order.
    for (const { id, signed, pendingEvent } of [...bundles].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))) {
      const lock = await lockQuote(tx, id, 'bundle', projectId);
      if (!lock.ok)
        throw lock.reason === 'missing'
          ? new BundleRefused(`Bundle ${id} not found`, true)
          : new BundleRefused(`Bundle ${id}: another route of its quote was already submitted`);
      const lifecycle = lifecycleOf(
        'bundle',
        id,
        lock.quote.account,
        projectId,
        lock.quote.operation,
        settings.fillGraceSeconds,
      );
      if (lock.recorded)
        accepted.push({
          id,
          status: lock.recorded.status,
          ...(lock.recorded.queued ? { start: lifecycle.start } : {}),
        });
      else if (lock.quote.expired) throw new BundleRefused(`Bundle ${id} expired`, true);
      else fresh.push({ id, signed, pendingEvent, quote: lock.quote, lifecycle });
    }
    for (const account of [...new Set(fresh.map((b) => b.quote.account))].sort()) {
      await proveAccount(
        tx,
        projectId,
        account,
        'intent',
        fresh.filter((b) => b.quote.account === account).flatMap((b) => b.quote.reservations),
        settings.proofDays,
      );
    }
    for (const {
      id,
      signed,
      pendingEvent,
      quote: { account, reservations },
      lifecycle: { start, originChainIds, destinationChainId: targetChainId, fillDeadline },
    } of fresh) {
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
      await tx.query('INSERT INTO bundle_events (project_id, bundle_id, type, payload) VALUES ($1, $2, $3, $4)', [
        projectId,
        id,
        'PendingBundle',
        pendingEvent,
      ]);
      await queueStart(tx, start);
      accepted.push({ id, status: 'PENDING', start });
    }
    // Answered in the request's order.
    return bundles.map((b) => accepted.find((a) => a.id === b.id)!);
  });
}

/** A page of the project's accepted-bundle events, oldest first. */
export async function bundleEvents(db: Db, projectId: string, offset: number, count: number): Promise<unknown[]> {
  const rows: { payload: unknown }[] = await db.query(
    'SELECT payload FROM bundle_events WHERE project_id = $1 ORDER BY id OFFSET $2 LIMIT $3',
    [projectId, offset, count],
  );
  return rows.map((r) => r.payload);
}

export interface BundleRecord {
  status: IntentStatus;
  originChainIds: string[];
  fill: { transactionHash: string; timestamp: number } | null;
  claims: Record<string, { transactionHash: string; timestamp: number }>;
}

/** A project's bundle by id (undefined for an unknown id and for another project's bundle alike). */
export async function readBundle(db: Tx, id: string, projectId: string): Promise<BundleRecord | undefined> {
  const [row]: BundleRecord[] = await db.query(
    'SELECT status, origin_chain_ids AS "originChainIds", fill, claims FROM bundles WHERE id = $1 AND project_id = $2',
    [id, projectId],
  );
  return row;
}
