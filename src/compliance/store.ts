import type { Db } from '../db/types';
import { queueSignals, queueStart, type QueuedSignal, type QueuedStart } from '../outbox/store';
import { emitEvent } from '../webhooks/event-store';
import {
  providerUpdateSignal,
  verificationWorkflowId,
  verificationWorkflowType,
  type VerificationStart,
} from '../../workflows/contracts/verification';
import type { Applicant, ProviderCallback, ProviderState } from './provider';
import { mintSession, type SessionClaims } from './session-token';

export type Currency = 'EUR' | 'USD';
export interface CustomerDetails {
  customerId: string;
  account?: string;
  email?: string;
  country?: string;
}

/**
 * Claims the right to open the customer's applicant at the provider (no verification yet, or one at another provider),
 * so concurrent create-or-resume calls for one customer and currency open one applicant. A claim is a row, not a lock:
 * the provider is called holding no connection, and a claim whose holder died lapses after `claimSeconds`.
 * Returns the claim id, or undefined while another caller holds a live claim.
 */
export async function claimApplicantCreation(
  db: Db,
  projectId: string,
  customerId: string,
  currency: Currency,
  claimSeconds: number,
): Promise<string | undefined> {
  const [row]: { claimId: string }[] = await db.query(
    `INSERT INTO verification_claims (project_id, customer_id, currency, claim_id, expires_at) VALUES ($1, $2, $3, gen_random_uuid(), now() + make_interval(secs => $4))
     ON CONFLICT (project_id, customer_id, currency) DO UPDATE SET claim_id = EXCLUDED.claim_id, expires_at = EXCLUDED.expires_at
     WHERE verification_claims.expires_at < now() RETURNING claim_id AS "claimId"`,
    [projectId, customerId, currency, claimSeconds],
  );
  return row?.claimId;
}

/** Gives a claim up (the provider call failed, or it was not needed): the next caller may claim at once. */
export async function releaseClaim(db: Db, claimId: string): Promise<void> {
  await db.query('DELETE FROM verification_claims WHERE claim_id = $1', [claimId]);
}

/** Mints a bearer for one customer of the project and records it (so it can be revoked) and the customer. */
export async function createSession(db: Db, projectId: string, c: CustomerDetails, secret: string, now: Date) {
  const account = c.account?.toLowerCase() ?? null;
  const minted = await mintSession(secret, { projectId, customerId: c.customerId, account }, now);
  await db.transaction(async (tx) => {
    await tx.query(
      'INSERT INTO compliance_sessions (id, project_id, customer_id, account, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [minted.sessionId, projectId, c.customerId, account, minted.expiresAt],
    );
    // The first customer to name an account owns it; details given later fill what is still empty.
    await tx.query(
      `INSERT INTO compliance_customers (project_id, customer_id, account, email, country) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (project_id, customer_id) DO UPDATE SET email = coalesce(EXCLUDED.email, compliance_customers.email), country = coalesce(EXCLUDED.country, compliance_customers.country)`,
      [projectId, c.customerId, null, c.email ?? null, c.country?.toUpperCase() ?? null],
    );
    if (account) {
      // Serialises claims of one account, so two customers naming it at once cannot both pass the NOT EXISTS.
      await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${projectId}:${account}`]);
      await tx.query(
        `UPDATE compliance_customers SET account = $3 WHERE project_id = $1 AND customer_id = $2 AND account IS NULL
         AND NOT EXISTS (SELECT 1 FROM compliance_customers WHERE project_id = $1 AND account = $3)`,
        [projectId, c.customerId, account],
      );
    }
  });
  return minted;
}

export async function revokeSession(db: Db, projectId: string, sessionId: string): Promise<boolean> {
  const [, count] = await db.query(
    'UPDATE compliance_sessions SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 AND project_id = $2',
    [sessionId, projectId],
  );
  return count > 0;
}

export async function sessionLive(db: Db, claims: SessionClaims): Promise<boolean> {
  const rows = await db.query(
    'SELECT 1 FROM compliance_sessions WHERE id = $1 AND project_id = $2 AND customer_id = $3 AND revoked_at IS NULL',
    [claims.sessionId, claims.projectId, claims.customerId],
  );
  return rows.length > 0;
}

/**
 * The customer the session resolves to: the owner of its account when it names one (the canonical binding), else
 * its customer. `mismatch` when the account belongs to another customer of the project.
 */
export async function resolveCustomer(
  db: Db,
  s: SessionClaims,
): Promise<{ mismatch: true } | { mismatch: false; email: string | null; country: string | null }> {
  const [row]: { customerId: string; email: string | null; country: string | null }[] = await db.query(
    s.account
      ? 'SELECT customer_id AS "customerId", email, country FROM compliance_customers WHERE project_id = $1 AND account = $2'
      : 'SELECT customer_id AS "customerId", email, country FROM compliance_customers WHERE project_id = $1 AND customer_id = $2',
    [s.projectId, s.account ?? s.customerId],
  );
  if (!row || row.customerId !== s.customerId) return { mismatch: true };
  return { mismatch: false, email: row.email, country: row.country };
}

export interface VerificationRow {
  id: string;
  status: ProviderState;
  applicantId: string;
  provider: string;
}

export async function findVerification(
  db: Db,
  projectId: string,
  customerId: string,
  currency: Currency,
): Promise<VerificationRow | undefined> {
  const [row]: VerificationRow[] = await db.query(
    'SELECT id, status, applicant_id AS "applicantId", provider FROM verifications WHERE project_id = $1 AND customer_id = $2 AND currency = $3',
    [projectId, customerId, currency],
  );
  return row;
}

/**
 * Records what the provider answered: a new verification with its lifecycle start queued (one per customer and
 * currency), or the applicant of an existing one, and gives up the caller's claim in the same transaction. Statuses
 * move only through the lifecycle (callbacks), never here.
 */
export async function recordApplicant(
  db: Db,
  projectId: string,
  customerId: string,
  currency: Currency,
  provider: string,
  applicant: Applicant,
  pendingTimeoutSeconds: number,
  claimId?: string,
): Promise<{ id: string; start?: QueuedStart }> {
  return db.transaction(async (tx) => {
    if (claimId) await tx.query('DELETE FROM verification_claims WHERE claim_id = $1', [claimId]);
    const [created]: { id: string }[] = await tx.query(
      `INSERT INTO verifications (project_id, customer_id, currency, provider, applicant_id, status) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (project_id, customer_id, currency) DO NOTHING RETURNING id`,
      [projectId, customerId, currency, provider, applicant.applicantId, applicant.state],
    );
    if (!created) {
      const [rows]: [{ id: string }[]] = await tx.query(
        'UPDATE verifications SET applicant_id = $4, provider = $5, updated_at = now() WHERE project_id = $1 AND customer_id = $2 AND currency = $3 RETURNING id',
        [projectId, customerId, currency, applicant.applicantId, provider],
      );
      return { id: rows[0].id };
    }
    const args: VerificationStart = { verificationId: created.id, pendingTimeoutSeconds, status: applicant.state };
    const start: QueuedStart = {
      workflowId: verificationWorkflowId(created.id),
      workflowType: verificationWorkflowType,
      args: [args],
      searchAttributes: { Project: projectId },
      summary: `verification of ${customerId} for ${currency} (${provider})`,
    };
    await queueStart(tx, start);
    return { id: created.id, start };
  });
}

/** A verified provider callback, recorded once and queued for its verification's lifecycle. */
export async function acceptCallback(
  db: Db,
  provider: string,
  cb: ProviderCallback,
): Promise<{ known: boolean; signals: QueuedSignal[] }> {
  return db.transaction(async (tx) => {
    const [v]: { id: string }[] = await tx.query(
      'SELECT id FROM verifications WHERE provider = $1 AND applicant_id = $2',
      [provider, cb.applicantId],
    );
    if (!v) return { known: false, signals: [] };
    const fresh = await tx.query(
      `INSERT INTO verification_callbacks (provider, event_id, verification_id, state, occurred_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [provider, cb.eventId, v.id, cb.state, cb.occurredAt],
    );
    if (!fresh.length) return { known: true, signals: [] };
    const signals = await queueSignals(tx, [
      {
        workflowId: verificationWorkflowId(v.id),
        signal: providerUpdateSignal.name,
        payload: { eventId: cb.eventId, state: cb.state, occurredAt: cb.occurredAt.getTime() },
      },
    ]);
    return { known: true, signals };
  });
}

/** The wire status of the spec: in review is `pending` too (without a next action). */
export const wireStatus = (s: ProviderState): 'completed' | 'failed' | 'pending' =>
  s === 'approved' ? 'completed' : s === 'declined' ? 'failed' : 'pending';

/**
 * Persists a status the lifecycle reached, or that it went stale, and emits `verification-updated` in the same
 * transaction, once per cause (the provider callback applied, or the stale mark after it). Returns the webhook start.
 */
export async function recordVerification(
  db: Db,
  verificationId: string,
  change: { status: ProviderState; cause: string } | { stale: true; cause: string },
): Promise<void> {
  return db.transaction(async (tx) => {
    const [[v]]: [
      {
        projectId: string;
        customerId: string;
        currency: Currency;
        provider: string;
        status: ProviderState;
        staleAt: Date | null;
        updatedAt: Date;
      }[],
    ] = await tx.query(
      `UPDATE verifications SET ${'status' in change ? 'status = $2, stale_at = NULL' : 'stale_at = coalesce(stale_at, now())'}, updated_at = now()
       WHERE id = $1 RETURNING project_id AS "projectId", customer_id AS "customerId", currency, provider, status, stale_at AS "staleAt", updated_at AS "updatedAt"`,
      'status' in change ? [verificationId, change.status] : [verificationId],
    );
    if (!v) return; // deleted with its project: nothing left to report
    await emitEvent(tx, {
      projectId: v.projectId,
      type: 'verification-updated',
      idempotencyKey: `verification:${verificationId}:${change.cause}`,
      payload: {
        verificationId,
        customerId: v.customerId,
        currency: v.currency,
        provider: v.provider,
        status: wireStatus(v.status),
        inReview: v.status === 'in_review',
        stale: v.staleAt !== null,
        updatedAt: v.updatedAt.toISOString(),
      },
    });
  });
}
