import type { Db, Tx } from '../db/types';
import { plainList } from '../db/plain-list';
import { preparedQuery, WITHOUT_FLUSH_WAIT } from '../db/prepared';
import { type Reservation } from '../ledger/ledger';
import { type Sponsored } from '../projects/sponsorship-store';
import { type IntentStatus } from '../../workflows/intent-state';
import { type LifecycleKind } from '../../workflows/contracts/intent-lifecycle';
import type { IntentOp } from './types';
import { recordIntentNonces } from '../ledger/store';
import { type StoredOperation, TABLE, workflowIdOf } from './lifecycle-kind';

export interface StoredQuote {
  operation: IntentOp;
  expired: boolean;
  submitted: boolean;
}

/** A project's quote by nonce, whether its time-to-live has passed, and whether it was already submitted as `kind`. */
export async function findQuote(
  db: Db,
  id: string,
  projectId: string,
  kind: LifecycleKind = 'intent',
): Promise<StoredQuote | undefined> {
  const [quote]: StoredQuote[] = await preparedQuery(
    db,
    // Quotes and what spent them belong to the project whose key asked for them; other projects see nothing.
    `SELECT q.operation, q.expires_at < now() AS expired, x.id IS NOT NULL AS submitted
     FROM quotes q LEFT JOIN ${TABLE[kind]} x ON x.id = q.nonce WHERE q.nonce = $1 AND q.project_id = $2`,
    [id, projectId],
  );
  return quote;
}

export interface QuoteRow {
  nonce: bigint;
  operation: IntentOp;
  cost: Record<string, unknown>;
  reservations: unknown[];
  sponsored?: Sponsored | null;
}

/**
 * Stores one request's quotes (one, or a blanc quote's alternative plans) with their nonce records, in one
 * statement: a single round trip that commits on its own, so a crash leaves all of them or none. A quote moves no
 * money, so the commit does not wait for the WAL flush: if PostgreSQL itself crashes right then, the quote is lost and
 * its submit gets 404 (request a new route); its nonce is never handed out again either way.
 */
export async function recordQuotes(
  db: Db,
  quotes: QuoteRow[],
  common: { projectId?: string; account: string; expiresAt: number; planGroup: string | null },
): Promise<void> {
  const nonces = quotes.map((q) => q.nonce.toString());
  const json = (pick: (q: QuoteRow) => unknown) => quotes.map((q) => JSON.stringify(pick(q)));
  await preparedQuery(
    db,
    `WITH recorded AS (${recordIntentNonces})
     INSERT INTO quotes (nonce, project_id, account, operation, cost, reservations, expires_at, route_group, sponsored)
     SELECT q.nonce, $6::uuid, $2::text, q.operation, q.cost, q.reservations, to_timestamp($7), $8::uuid, nullif(q.sponsored, 'null'::jsonb)
     FROM unnest($1::numeric[], $3::jsonb[], $4::jsonb[], $5::jsonb[], $9::jsonb[]) AS q(nonce, operation, cost, reservations, sponsored), ${WITHOUT_FLUSH_WAIT}`,
    [
      nonces,
      common.account.toLowerCase(),
      json((q) => q.operation),
      json((q) => q.cost),
      json((q) => q.reservations),
      common.projectId ?? null,
      common.expiresAt,
      common.planGroup,
      json((q) => q.sponsored ?? null),
    ],
  );
}

/** What a nonce's fills and claims must agree with: its quote's chains, and when it was quoted (unix seconds). */
export interface QuotedPlan {
  destinationChainId: number;
  originChainIds: number[];
  quotedAt: number;
  /** what a fill must pay: its recipient (lowercase), each token (lowercase address) with at least its amount */
  recipient: string;
  tokenOut: { token: string; amount: bigint }[];
}

/**
 * The plans of the quotes among `nonces` (of intents and legacy bundles, submitted or not), from the columns kept
 * beside each operation for this read (a batch of fills reads hundreds; the operations are stored compressed).
 */
export async function quotedPlans(tx: Tx, nonces: string[]): Promise<Map<string, QuotedPlan>> {
  const rows: {
    nonce: string;
    originChainIds: (string | number)[];
    destinationChainId: string;
    recipient: string;
    tokenOut: [string, string][];
    quotedAt: string;
  }[] = await preparedQuery(
    tx,
    `SELECT nonce::text, plan_origin_chain_ids AS "originChainIds", plan_destination_chain_id AS "destinationChainId",
       plan_recipient AS recipient, plan_token_out AS "tokenOut", floor(extract(epoch FROM created_at))::bigint AS "quotedAt"
     FROM quotes WHERE nonce = ANY(string_to_array($1, ',')::numeric[])`,
    [plainList(nonces)],
  );
  return new Map(
    rows.map((r) => [
      r.nonce,
      {
        // as chainsOf reads them from the whole operation
        originChainIds: [...new Set(r.originChainIds.map(Number))],
        destinationChainId: Number(r.destinationChainId),
        quotedAt: Number(r.quotedAt),
        recipient: r.recipient.toLowerCase(),
        tokenOut: r.tokenOut.map(([id, amount]) => ({ token: tokenOfId(id), amount: BigInt(amount) })),
      },
    ]),
  );
}

/** The token of a mandate's `tokenOut` id: its low 20 bytes (the high 12 are a lock tag). */
export const tokenOfId = (id: string) => `0x${(BigInt(id) & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;

export interface LockedQuote {
  account: string;
  operation: StoredOperation & IntentOp;
  reservations: Reservation[];
  expired: boolean;
  sponsored: boolean;
}
/** `recorded`: the quote was already spent as this kind (a resubmission): its status, and whether its start is still queued. */
export type QuoteLock =
  | { ok: true; quote: LockedQuote; recorded?: { status: IntentStatus; queued: boolean } }
  | { ok: false; reason: 'missing' | 'sibling-spent' };

/**
 * Locks a project's stored quote for spending as `kind` (an intent or a legacy bundle), together with its sibling
 * plans (one blanc quote's alternatives), in nonce order so that concurrent spenders queue rather than deadlock.
 * A quote is spent once: one spent as the other kind is missing to this one, and one whose sibling was spent (as
 * either kind) is refused.
 */
export async function lockQuote(tx: Tx, id: string, kind: LifecycleKind, projectId: string): Promise<QuoteLock> {
  const rows: (LockedQuote & { nonce: string })[] = await preparedQuery(
    tx,
    `SELECT nonce::text, account, operation, reservations, expires_at < now() AS expired, sponsored IS NOT NULL AS sponsored FROM quotes
     WHERE (nonce = $1 OR route_group = (SELECT route_group FROM quotes WHERE nonce = $1)) AND project_id = $2 ORDER BY nonce FOR UPDATE`,
    [id, projectId],
  );
  const own = rows.find((r) => r.nonce === id);
  if (!own) return { ok: false, reason: 'missing' };
  // A statement of its own, after the lock: its snapshot sees a spender that committed while this one waited.
  const spent: { id: string; kind: LifecycleKind; status: IntentStatus; queued: boolean }[] = await preparedQuery(
    tx,
    `SELECT x.*, EXISTS (SELECT 1 FROM workflow_outbox o WHERE o.workflow_id = $2) AS queued FROM (
       SELECT id::text, 'intent' AS kind, status FROM intents WHERE id = ANY($1::numeric[])
       UNION ALL SELECT id::text, 'bundle', status FROM bundles WHERE id = ANY($1::numeric[])) x`,
    [rows.map((r) => r.nonce), workflowIdOf(kind, id)],
  );
  const mine = spent.find((x) => x.id === id);
  if (mine && mine.kind !== kind) return { ok: false, reason: 'missing' };
  if (spent.some((x) => x.id !== id)) return { ok: false, reason: 'sibling-spent' };
  const { nonce: _nonce, ...quote } = own; // eslint-disable-line @typescript-eslint/no-unused-vars
  return { ok: true, quote, ...(mine ? { recorded: { status: mine.status, queued: mine.queued } } : {}) };
}

/**
 * Runs `update` (the owner's write that forgets a recorded quote, guarded by `NOT EXISTS (SELECT 1 FROM intents WHERE
 * id = <quote>)`) and voids the quote after taking its row lock: a submit of that quote still committing holds the
 * lock, so its intent is seen and an accepted quote is never forgotten; a submit that comes later (an overlapping
 * activity retry that read the quote before it was forgotten) finds no quote and is refused (404). So a deposit or
 * withdrawal never has two live intents: the forgotten one can no longer be accepted once the next attempt quotes
 * afresh.
 */
export async function forgetUnlessAccepted(
  db: Db,
  quoteNonce: string,
  update: (tx: Tx) => Promise<unknown>,
): Promise<void> {
  await db.transaction(async (tx) => {
    await lockQuoteRow(tx, quoteNonce);
    await update(tx);
    await tx.query(
      'DELETE FROM quotes q WHERE nonce = $1 AND NOT EXISTS (SELECT 1 FROM intents WHERE id = $1) AND NOT EXISTS (SELECT 1 FROM bundles WHERE id = $1)',
      [quoteNonce],
    );
  });
}

/** Takes a quote's row lock (where the lock order has the quote: before the deposit or withdrawal that quoted it). */
export async function lockQuoteRow(tx: Tx, nonce: string): Promise<void> {
  await tx.query('SELECT 1 FROM quotes WHERE nonce = $1 FOR UPDATE', [nonce]);
}

/** Forgets a quote no intent accepted (its row locked in this transaction): it can never be accepted. */
export async function forgetQuote(tx: Tx, nonce: string): Promise<void> {
  await tx.query('DELETE FROM quotes WHERE nonce = $1', [nonce]);
}
