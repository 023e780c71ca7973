import type { DataSource, EntityManager } from 'typeorm';
import { preparedQuery, WITHOUT_FLUSH_WAIT } from '../db/prepared';
import { plainList } from '../db/plain-list';
import {
  type ChainClaim,
  InsufficientBalance,
  releaseAfterExpiry,
  reserve,
  settleOnClaims,
  type Reservation,
} from '../ledger/ledger';
import { queuedStartInsert, type QueuedStart } from '../outbox/store';
import { proveAccount } from '../projects/account-store';
import { recordSponsored, type Sponsored } from '../projects/sponsorship-store';
import {
  keepClaim,
  recordEvent,
  type ChainTx,
  type IntentEvent,
  type IntentState,
  type IntentStatus,
  movesForward,
} from '../../workflows/intent-state';
import {
  intentWorkflowId,
  intentWorkflowType,
  type LifecycleKind,
  type LifecycleStart,
  type TransitionOutcome,
} from '../../workflows/contracts/intent-lifecycle';
import { bundleWorkflowId, bundleWorkflowType } from '../../workflows/contracts/bundle-lifecycle';
import type { IntentOp, Submission } from './types';
import type { Liquidity } from './split';
import { claimStates, type ClaimState } from './claims';
import { DomainError } from '../errors';

/** Intents and legacy bundles share the lifecycle and its transition columns (src/bundles). */
const owner = (id: string, kind: LifecycleKind = 'intent') => ({ kind, id });
const TABLE: Record<LifecycleKind, string> = { intent: 'intents', bundle: 'bundles' };

export interface StoredQuote {
  operation: IntentOp;
  expired: boolean;
  submitted: boolean;
}

/** A project's quote by nonce, whether its time-to-live has passed, and whether it was already submitted as `kind`. */
export async function findQuote(
  db: DataSource,
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
  db: DataSource,
  quotes: QuoteRow[],
  common: { projectId?: string; account: string; expiresAt: number; planGroup: string | null },
): Promise<void> {
  const nonces = quotes.map((q) => q.nonce.toString());
  const json = (pick: (q: QuoteRow) => unknown) => quotes.map((q) => JSON.stringify(pick(q)));
  await preparedQuery(
    db,
    `WITH recorded AS (INSERT INTO allocator_nonces (nonce, sponsor, purpose) SELECT n, $2::text, 'intent' FROM unnest($1::numeric[]) n)
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

/** An intent as every version reports it: its status, chains, fill and claims, and on request its full record. */
export interface IntentRecord {
  id: string;
  status: IntentStatus;
  account: string;
  destinationChainId: number;
  fill?: { transactionHash: string; timestamp: number };
  claims: ClaimState[];
  operation: unknown;
  signatures: unknown;
  history: { status: string; at: string }[];
}

const noSuchIntent = (id: string) => new DomainError('NOT_FOUND', `No such intent with nonce ${id}`);

/** A project's intent by id; 404 for an unknown id and for another project's intent alike. */
export async function readIntent(db: DataSource, id: string, projectId: string): Promise<IntentRecord> {
  const [row]: {
    status: IntentStatus;
    account: string;
    destinationChainId: string;
    originChainIds: string[];
    fill: { transactionHash: string; timestamp: number } | null;
    claims: Record<string, { transactionHash: string; timestamp: number }>;
    operation: unknown;
    signatures: unknown;
    history: IntentRecord['history'];
  }[] = await preparedQuery(
    db,
    `SELECT i.status, i.account, i.destination_chain_id AS "destinationChainId", i.origin_chain_ids AS "originChainIds", i.fill, i.claims, i.operation, i.signatures, i.history
     FROM intents i JOIN quotes q ON q.nonce = i.id WHERE i.id = $1 AND q.project_id = $2`,
    [id, projectId],
  );
  if (!row) throw noSuchIntent(id);
  return {
    id,
    status: row.status,
    account: row.account,
    destinationChainId: Number(row.destinationChainId),
    ...(row.fill ? { fill: row.fill } : {}),
    claims: claimStates(row.status, row.originChainIds, row.claims),
    operation: row.operation,
    signatures: row.signatures,
    history: row.history,
  };
}

/** An accepted intent as a claim of it needs it: the operation, the sponsor's signatures, and what the ledger still holds. */
export interface ClaimableIntent {
  id: string;
  operation: IntentOp;
  signatures: Submission;
  /** `expires` has passed: The Compact accepts no claim of it any more */
  expired: boolean;
  /** the origin chains where every reservation of the intent is still held (none released by a settled claim or after `expires`) */
  heldChainIds: number[];
}

/** A project's intent for a claim authorization; 404 for an unknown id and for another project's intent alike. */
export async function readClaimable(db: DataSource, id: string, projectId: string): Promise<ClaimableIntent> {
  const [row]: { operation: IntentOp; signatures: Submission; expired: boolean; heldChainIds: string[] }[] =
    await preparedQuery(
      db,
      `SELECT i.operation, i.signatures, (i.operation->>'expires')::numeric <= extract(epoch FROM now()) AS expired,
       ARRAY(SELECT r.chain_id FROM reservations r WHERE r.owner_kind = 'intent' AND r.owner_id = $1::text
         GROUP BY r.chain_id HAVING bool_and(r.released_at IS NULL)) AS "heldChainIds"
     FROM intents i JOIN quotes q ON q.nonce = i.id WHERE i.id = $1::numeric AND q.project_id = $2`,
      [id, projectId],
    );
  if (!row) throw noSuchIntent(id);
  return {
    id,
    operation: row.operation,
    signatures: row.signatures,
    expired: row.expired,
    heldChainIds: row.heldChainIds.map(Number),
  };
}

/** What each settlement layer's relayers can fill on a chain (indexer `liquidity` events). */
export async function liquidityOn(db: DataSource, chainId: number): Promise<Liquidity[]> {
  const rows: { settlementLayer: string; token: string; amount: string }[] = await db.query(
    'SELECT settlement_layer AS "settlementLayer", token, amount FROM relayer_liquidity WHERE chain_id = $1',
    [chainId],
  );
  return rows.map((r) => ({ settlementLayer: r.settlementLayer, token: r.token, amount: BigInt(r.amount) }));
}

type StoredOperation = {
  expires: string;
  elements: {
    chainId: string;
    mandate: { destinationChainId: string; fillDeadline: string; recipient: string; tokenOut: [string, string][] };
  }[];
};

/** Where a stored operation's funds come from and go to. */
const chainsOf = (operation: StoredOperation) => ({
  originChainIds: [...new Set(operation.elements.map((e) => Number(e.chainId)))],
  destinationChainId: Number(operation.elements[0].mandate.destinationChainId),
});

/** The chains and deadlines of a stored operation, and the queued start of the lifecycle that tracks it (intent or bundle). */
export function lifecycleOf(
  kind: LifecycleKind,
  id: string,
  account: string,
  projectId: string,
  operation: StoredOperation,
  fillGraceSeconds: number,
) {
  const { originChainIds, destinationChainId } = chainsOf(operation);
  const fillDeadline = Number(operation.elements[0].mandate.fillDeadline);
  const start: QueuedStart = {
    workflowId: workflowIdOf(kind, id),
    workflowType: kind === 'intent' ? intentWorkflowType : bundleWorkflowType,
    args: [
      {
        id,
        originChainIds,
        fillDeadline,
        fillGraceSeconds,
        expires: Number(operation.expires),
      } satisfies LifecycleStart,
    ],
    searchAttributes: {
      IntentStatus: 'PENDING',
      Account: account,
      Project: projectId,
      Chains: [...new Set([...originChainIds, destinationChainId])].map(String),
    },
    summary: `${kind === 'intent' ? 'Intent' : 'Bundle'} ${id}: ${account} → chain ${destinationChainId}`,
    // Until a fill may no longer arrive, only an indexer event (a signal) gives the lifecycle something to do.
    delayUntil: (fillDeadline + fillGraceSeconds) * 1000,
  };
  return { start, originChainIds, destinationChainId, fillDeadline };
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

/** The plans of the quotes among `nonces` (of intents and legacy bundles, submitted or not). */
export async function quotedPlans(tx: EntityManager, nonces: string[]): Promise<Map<string, QuotedPlan>> {
  const rows: { nonce: string; operation: StoredOperation; quotedAt: string }[] = await preparedQuery(
    tx,
    'SELECT nonce::text, operation, floor(extract(epoch FROM created_at))::bigint AS "quotedAt" FROM quotes WHERE nonce = ANY($1::numeric[])',
    [nonces],
  );
  return new Map(
    rows.map((r) => {
      const { mandate } = r.operation.elements[0];
      return [
        r.nonce,
        {
          ...chainsOf(r.operation),
          quotedAt: Number(r.quotedAt),
          recipient: mandate.recipient.toLowerCase(),
          tokenOut: mandate.tokenOut.map(([id, amount]) => ({ token: tokenOfId(id), amount: BigInt(amount) })),
        },
      ];
    }),
  );
}

/** The token of a mandate's `tokenOut` id: its low 20 bytes (the high 12 are a lock tag). */
const tokenOfId = (id: string) => `0x${(BigInt(id) & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;

/**
 * The lifecycle starts of the recorded intents and legacy bundles among `ids`, rebuilt from their quotes: what their
 * events' signals carry to wake them (QueuedSignal.start).
 */
export async function lifecycleStarts(
  tx: EntityManager,
  ids: string[],
  fillGraceSeconds: number,
): Promise<Map<string, QueuedStart>> {
  const rows: { id: string; kind: LifecycleKind; account: string; projectId: string; operation: StoredOperation }[] =
    await preparedQuery(
      tx,
      `SELECT q.nonce::text AS id, x.kind, q.account, q.project_id AS "projectId", q.operation FROM quotes q JOIN (
       SELECT id, 'intent' AS kind FROM intents WHERE id = ANY($1::numeric[])
       UNION ALL SELECT id, 'bundle' FROM bundles WHERE id = ANY($1::numeric[])) x ON x.id = q.nonce`,
      [ids],
    );
  return new Map(
    rows.map((r) => [r.id, lifecycleOf(r.kind, r.id, r.account, r.projectId, r.operation, fillGraceSeconds).start]),
  );
}

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

const workflowIdOf = (kind: LifecycleKind, id: string) =>
  kind === 'intent' ? intentWorkflowId(id) : bundleWorkflowId(id);

/**
 * Locks a project's stored quote for spending as `kind` (an intent or a legacy bundle), together with its sibling
 * plans (one blanc quote's alternatives), in nonce order so that concurrent spenders queue rather than deadlock.
 * A quote is spent once: one spent as the other kind is missing to this one, and one whose sibling was spent (as
 * either kind) is refused.
 */
export async function lockQuote(
  tx: EntityManager,
  id: string,
  kind: LifecycleKind,
  projectId: string,
): Promise<QuoteLock> {
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

/** A submit the ledger, the quote's lifetime or a sibling plan refuses; nothing was changed. */
export class SubmitRefused extends Error {
  constructor(
    message: string,
    readonly quoteGone = false,
    readonly conflict = false,
    readonly forbidden = false,
  ) {
    super(message);
  }
}

/**
 * What a session intent may spend: the project's deposit credit in the account, which its owner (src/deposits) keeps.
 * `lock` takes the (project, account) row where the lock order has an account's proof; `overdrawn` says whether the
 * intent's reservations, recorded in the same transaction, spend more than that credit.
 */
export interface SessionCredit {
  lock(tx: EntityManager, projectId: string, account: string): Promise<void>;
  overdrawn(tx: EntityManager, projectId: string, account: string, intentId: string): Promise<boolean>;
}

export interface Accepted {
  status: IntentStatus;
  start?: QueuedStart;
}

/**
 * Records a verified submission in one transaction: the sponsor's proof of its account to the project, the
 * reservation of what it spends, the intent, and the queued start of its lifecycle (performed after the commit, or by
 * the outbox sweeper if this process dies first). `credit`: signed by the project's session signer for a deposit
 * account, which proves nothing about the account and may spend only the project's deposit credit in it. Locks are taken in the global order (src/ledger/ledger.ts): the quote, the (project,
 * account) row, then balance rows. The same submission again returns the recorded status, and the queued start when
 * it has not been performed yet.
 */
export async function acceptIntent(
  db: DataSource,
  id: string,
  submission: Submission,
  projectId: string,
  settings: { fillGraceSeconds: number; proofDays: number },
  credit?: SessionCredit,
): Promise<Accepted> {
  return db.transaction(async (tx) => {
    const lock = await lockQuote(tx, id, 'intent', projectId);
    if (!lock.ok)
      throw lock.reason === 'missing'
        ? new SubmitRefused('Quote not found', true)
        : new SubmitRefused('Another route of this quote was already submitted', false, true);
    const { account, operation, reservations, expired, sponsored } = lock.quote;
    const { start, originChainIds, destinationChainId, fillDeadline } = lifecycleOf(
      'intent',
      id,
      account,
      projectId,
      operation,
      settings.fillGraceSeconds,
    );
    const { recorded } = lock;
    if (recorded) return { status: recorded.status, ...(recorded.queued ? { start } : {}) };
    if (expired) throw new SubmitRefused('Quote expired', true);
    if (credit) await credit.lock(tx, projectId, account);
    else await proveAccount(tx, projectId, account, 'intent', reservations, settings.proofDays);
    try {
      await reserve(tx, owner(id), account, reservations);
    } catch (e) {
      if (e instanceof InsufficientBalance) throw new SubmitRefused(e.message);
      throw e;
    }
    // One statement for the intent and its queued start (both rows only this transaction creates); the operation is
    // copied from the locked quote in PostgreSQL rather than sent back as JSON.
    const queued = queuedStartInsert(start, 8);
    await preparedQuery(
      tx,
      `WITH queued AS (${queued.sql})
       INSERT INTO intents (id, account, status, destination_chain_id, origin_chain_ids, fill_deadline, operation, signatures, history, signed_by_session)
       SELECT $1, $2, 'PENDING', $3, $4, $5, q.operation, $6, jsonb_build_array(jsonb_build_object('status', 'PENDING', 'at', now())), $7
       FROM quotes q WHERE q.nonce = $1`,
      [id, account, destinationChainId, originChainIds, fillDeadline, submission, !!credit, ...queued.params],
    );
    // Sponsored fees count for the project once, when the intent is accepted (not per quote or retried submit).
    if (sponsored && !(await recordSponsored(tx, id, projectId)))
      throw new SubmitRefused(
        'This project is no longer entitled to fee sponsorship; request a new route',
        false,
        false,
        true,
      );
    if (credit && (await credit.overdrawn(tx, projectId, account, id)))
      throw new SubmitRefused(new InsufficientBalance().message);
    return { status: 'PENDING', start };
  });
}

/** What a transition's write did: moved the status on, kept it (an event recorded, or nothing new), or was refused. */
/** Work done in the transaction of a transition that moves the status, or of a lifecycle's release: its report onward. */
export type OnMove = (tx: EntityManager) => Promise<unknown>;

/**
 * Persists a transition: the event (if any) and the status it leads to, in one transaction. A claim hands the
 * reservations of its chain over to settlement (released once a balance snapshot shows the claim), whatever the
 * status (the arbiter may claim an EXPIRED or FAILED intent until `expires`). Safe to repeat (first fill and first
 * claim per chain win). Forward only: a status the stored one cannot move to (`movesForward`,
 * workflows/intent-state.ts), or any write once the lifecycle has released, comes from a stale lifecycle (one
 * started again after Temporal purged its closed run) and is refused, writing nothing. `onMove` runs in the same
 * transaction when the status moves, so its report is queued exactly once however often the write is repeated.
 */
export async function recordTransition(
  db: DataSource,
  id: string,
  status: IntentStatus,
  event?: IntentEvent,
  kind: LifecycleKind = 'intent',
  onMove?: OnMove,
): Promise<TransitionOutcome> {
  return db.transaction(async (m) => {
    const [stored]: { status: IntentStatus; released: boolean; recorded: boolean }[] = await m.query(
      `SELECT status, released_at IS NOT NULL AS released,
         CASE $2 WHEN 'fill' THEN fill IS NOT NULL WHEN 'claim' THEN claims ? $3 ELSE true END AS recorded
       FROM ${TABLE[kind]} WHERE id = $1 FOR UPDATE`,
      [id, event?.type ?? null, String(event?.chainId ?? '')],
    );
    if (!stored || stored.released || (stored.status !== status && !movesForward(stored.status, status)))
      return 'refused';
    // Usually the indexer route recorded the event first (recordLifecycleEvents), settlement included: nothing is left.
    if (stored.status === status && stored.recorded) return 'kept';
    const write = pendingWrite(id);
    addToWrite(write, stored.status, status, event);
    await writeTransitions(m, kind, [write]);
    if (event?.type === 'claim') await settleOnClaims(m, [claimOf(id, kind, event)]);
    if (stored.status === status) return 'kept';
    await onMove?.(m);
    return 'moved';
  });
}

/**
 * What transitions write to one locked row: the first fill and the first claim per chain (kept where the row has them
 * already), the status they lead to, and a history entry for each move of the status.
 */
interface TransitionWrite {
  id: string;
  fill: ChainTx | null;
  claims: Record<string, ChainTx>;
  status: IntentStatus | null;
  moves: { status: IntentStatus; event?: IntentEvent }[];
}

const pendingWrite = (id: string): TransitionWrite => ({ id, fill: null, claims: {}, status: null, moves: [] });

/** The stored form of an event's transaction: without its block, which only the ledger needs. */
const storedTx = (e: ChainTx): ChainTx => ({
  chainId: e.chainId,
  transactionHash: e.transactionHash,
  timestamp: e.timestamp,
});

/** Adds the transition of the row from status `from` to `to` by `event` (if any) to what is written to it. */
function addToWrite(write: TransitionWrite, from: IntentStatus, to: IntentStatus, event?: IntentEvent): void {
  if (event?.type === 'fill') write.fill ??= storedTx(event);
  if (event?.type === 'claim') write.claims[String(event.chainId)] ??= storedTx(event);
  if (from !== to) write.moves.push({ status: to, ...(event ? { event } : {}) });
  write.status = to;
}

/** Transitions of locked rows of one kind, one statement for all of them. */
async function writeTransitions(m: EntityManager, kind: LifecycleKind, writes: TransitionWrite[]): Promise<void> {
  if (!writes.length) return;
  await preparedQuery(
    m,
    `UPDATE ${TABLE[kind]} t SET
         fill = coalesce(t.fill, w.fill),
         claims = w.claims || t.claims,
         history = t.history || coalesce((SELECT jsonb_agg(jsonb_strip_nulls(e || jsonb_build_object('at', now())) ORDER BY n)
           FROM jsonb_array_elements(w.moves) WITH ORDINALITY AS x(e, n)), '[]'::jsonb),
         status = w.status,
         updated_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS w(id numeric, fill jsonb, claims jsonb, status text, moves jsonb)
       WHERE t.id = w.id`,
    [JSON.stringify(writes)],
  );
}

/**
 * At `expires` nothing more can be claimed: what no claim spent goes back to the account once a snapshot at or after
 * `expires` shows no claim was mined before it (src/ledger/ledger.ts). This ends the lifecycle (`released_at`):
 * `onRelease` runs in the same transaction the first time only, and never for a COMPLETED intent (whose lifecycle
 * ended there), so a stale lifecycle's release reports nothing again. Returns whether this was the first.
 */
export async function releaseIntent(
  db: DataSource,
  id: string,
  kind: LifecycleKind = 'intent',
  onRelease?: OnMove,
): Promise<boolean> {
  return db.transaction(async (m) => {
    // The owner's row before its reservations, as an indexer batch takes them (its events, then the releases).
    await m.query(`SELECT 1 FROM ${TABLE[kind]} WHERE id = $1 FOR UPDATE`, [id]);
    const [quote]: { expires: string }[] = await m.query(
      "SELECT operation->>'expires' AS expires FROM quotes WHERE nonce = $1",
      [id],
    );
    await releaseAfterExpiry(m, owner(id, kind), Number(quote.expires));
    const [, ended]: [unknown, number] = await m.query(
      `UPDATE ${TABLE[kind]} SET released_at = now() WHERE id = $1 AND released_at IS NULL AND status <> 'COMPLETED'`,
      [id],
    );
    if (ended) await onRelease?.(m);
    return ended > 0;
  });
}

/**
 * Of these intent and bundle ids, the ones whose lifecycle has ended (COMPLETED, or released at `expires`), with the
 * status it ended in: a workflow started for one again would only replay stale events.
 */
export async function endedLifecycles(db: DataSource, ids: string[]): Promise<Map<string, IntentStatus>> {
  const rows: { id: string; status: IntentStatus }[] = await db.query(
    `SELECT id::text, status FROM intents WHERE id = ANY($1::numeric[]) AND (status = 'COMPLETED' OR released_at IS NOT NULL)
     UNION ALL SELECT id::text, status FROM bundles WHERE id = ANY($1::numeric[]) AND (status = 'COMPLETED' OR released_at IS NOT NULL)`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** A lifecycle event of the intent or legacy bundle `id` (its nonce), as a route ingests it. */
export interface IngestedEvent {
  id: string;
  event: IntentEvent;
}

/** An intent or bundle whose status an ingested event moved, and the status it moved to. */
export interface StatusMove {
  id: string;
  kind: LifecycleKind;
  status: IntentStatus;
}

/**
 * Lifecycle events as the routes that ingest them record them, in their transaction, by the rule the lifecycle
 * applies (recordEvent, workflows/intent-state.ts): a status is visible as soon as its batch commits rather than once
 * Temporal has woken the lifecycle, which reaches the same status from the signals queued beside them and whose own
 * writes then change nothing. Once the lifecycle has released the funds at `expires`, only a claim is recorded,
 * beside the status, which stays: mined before `expires`, it settles its chain's reservations all the same. Nothing
 * is written for a nonce with no intent or bundle yet (its lifecycle records its events when they reach it). Each
 * owner's events apply in the order given; whatever the batch's size, its owners are locked, their transitions
 * written and their claims settled in a few statements. Returns the moves of the status.
 */
export async function recordLifecycleEvents(tx: EntityManager, events: IngestedEvent[]): Promise<StatusMove[]> {
  const byOwner = new Map<string, IntentEvent[]>();
  for (const { id, event } of events) byOwner.set(id, [...(byOwner.get(id) ?? []), event]);
  const stored = await lockLifecycles(tx, [...byOwner.keys()]);
  const moves: StatusMove[] = [];
  const writes: Record<LifecycleKind, TransitionWrite[]> = { intent: [], bundle: [] };
  const claims: ChainClaim[] = [];
  for (const [id, ownEvents] of byOwner) {
    const recorded = stored.get(id);
    if (!recorded) continue;
    const { kind, released } = recorded;
    const write = pendingWrite(id);
    let state = recorded.state;
    for (const event of ownEvents) {
      const next = released ? claimAfterRelease(state, event) : recordEvent(state, event);
      if (next === state) continue;
      addToWrite(write, state.status, next.status, event);
      if (event.type === 'claim') claims.push(claimOf(id, kind, event));
      if (next.status !== state.status) moves.push({ id, kind, status: next.status });
      state = next;
    }
    if (write.status) writes[kind].push(write);
  }
  await writeTransitions(tx, 'intent', writes.intent);
  await writeTransitions(tx, 'bundle', writes.bundle);
  await settleOnClaims(tx, claims);
  return moves;
}

const claimAfterRelease = (state: IntentState, event: IntentEvent) =>
  event.type === 'claim' ? keepClaim(state, event) : state;

/** The claim of an intent's or bundle's reservations on the chain of a Claim event. */
const claimOf = (id: string, kind: LifecycleKind, event: ChainTx): ChainClaim => ({
  owner: owner(id, kind),
  chainId: event.chainId,
  claimBlock: event.blockNumber,
});

/**
 * The recorded lifecycle state of these intents and bundles (by id; none for an id that is neither yet), their rows
 * locked for the rest of the transaction: intents, then bundles, each in id order, as every batch locks them.
 */
async function lockLifecycles(
  tx: EntityManager,
  ids: string[],
): Promise<Map<string, { kind: LifecycleKind; state: IntentState; released: boolean }>> {
  if (!ids.length) return new Map();
  const columns = `id::text, status, fill, claims, origin_chain_ids::text[] AS "originChainIds",
    fill_deadline::text AS "fillDeadline", released_at IS NOT NULL AS released`;
  const rows: {
    id: string;
    kind: LifecycleKind;
    status: IntentStatus;
    fill: ChainTx | null;
    claims: Record<string, ChainTx>;
    originChainIds: string[];
    fillDeadline: string;
    released: boolean;
  }[] = await preparedQuery(
    tx,
    `WITH i AS (SELECT 'intent' AS kind, ${columns} FROM intents
       WHERE id = ANY(string_to_array($1, ',')::numeric[]) ORDER BY id FOR UPDATE),
     b AS (SELECT 'bundle' AS kind, ${columns} FROM bundles
       WHERE id = ANY(string_to_array($1, ',')::numeric[]) ORDER BY id FOR UPDATE)
     SELECT * FROM i UNION ALL SELECT * FROM b`,
    [plainList(ids)],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        kind: row.kind,
        released: row.released,
        state: {
          status: row.status,
          originChainIds: row.originChainIds.map(Number),
          fillDeadline: Number(row.fillDeadline),
          claims: row.claims,
          ...(row.fill ? { fill: row.fill } : {}),
        },
      },
    ]),
  );
}
