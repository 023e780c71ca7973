import type { Db, Tx } from '../db/types';
import { preparedQuery } from '../db/prepared';
import { plainList } from '../db/plain-list';
import { type ChainClaim, releaseAfterExpiry, settleOnClaims } from '../ledger/ledger';
import {
  keepClaim,
  recordEvent,
  type ChainTx,
  type IntentEvent,
  type IntentState,
  type IntentStatus,
  movesForward,
} from '../../workflows/intent-state';
import { type LifecycleKind, type TransitionOutcome } from '../../workflows/contracts/intent-lifecycle';
import { owner, TABLE } from './lifecycle-kind';

/** Work done in the transaction of a transition that moves the status, or of a lifecycle's release: its report onward. */
export type OnMove = (tx: Tx) => Promise<unknown>;

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
  db: Db,
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
async function writeTransitions(m: Tx, kind: LifecycleKind, writes: TransitionWrite[]): Promise<void> {
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
  db: Db,
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
export async function endedLifecycles(db: Db, ids: string[]): Promise<Map<string, IntentStatus>> {
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
 * written and their claims settled in a few statements. Returns the moves of the status, and the fill deadline of
 * each owner found (an intent or bundle; none for a nonce that is neither yet).
 */
export async function recordLifecycleEvents(
  tx: Tx,
  events: IngestedEvent[],
): Promise<{ moves: StatusMove[]; owners: Map<string, number> }> {
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
  return { moves, owners: new Map([...stored].map(([id, { state }]) => [id, state.fillDeadline!])) };
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
 * What the record of the intent or bundle `id` holds of its lifecycle (undefined before its submit commits): the
 * lifecycle takes from it the events the indexer route recorded without waking it (src/ingestion/ingest.ts).
 */
export async function recordedLifecycle(
  db: Db,
  id: string,
  kind: LifecycleKind = 'intent',
): Promise<IntentState | undefined> {
  const [row]: LifecycleRow[] = await db.query(
    `SELECT $2::text AS kind, ${LIFECYCLE_COLUMNS} FROM ${TABLE[kind]} WHERE id = $1`,
    [id, kind],
  );
  return row && stateOf(row);
}

const LIFECYCLE_COLUMNS = `id::text, status, fill, claims, origin_chain_ids::text[] AS "originChainIds",
  fill_deadline::text AS "fillDeadline", released_at IS NOT NULL AS released`;

type LifecycleRow = {
  id: string;
  kind: LifecycleKind;
  status: IntentStatus;
  fill: ChainTx | null;
  claims: Record<string, ChainTx>;
  originChainIds: string[];
  fillDeadline: string;
  released: boolean;
};

const stateOf = (row: LifecycleRow): IntentState => ({
  status: row.status,
  originChainIds: row.originChainIds.map(Number),
  fillDeadline: Number(row.fillDeadline),
  claims: row.claims,
  ...(row.fill ? { fill: row.fill } : {}),
});

/**
 * The recorded lifecycle state of these intents and bundles (by id; none for an id that is neither yet), their rows
 * locked for the rest of the transaction: intents, then bundles, each in id order, as every batch locks them.
 */
async function lockLifecycles(
  tx: Tx,
  ids: string[],
): Promise<Map<string, { kind: LifecycleKind; state: IntentState; released: boolean }>> {
  if (!ids.length) return new Map();
  const rows: LifecycleRow[] = await preparedQuery(
    tx,
    `WITH i AS (SELECT 'intent' AS kind, ${LIFECYCLE_COLUMNS} FROM intents
       WHERE id = ANY(string_to_array($1, ',')::numeric[]) ORDER BY id FOR UPDATE),
     b AS (SELECT 'bundle' AS kind, ${LIFECYCLE_COLUMNS} FROM bundles
       WHERE id = ANY(string_to_array($1, ',')::numeric[]) ORDER BY id FOR UPDATE)
     SELECT * FROM i UNION ALL SELECT * FROM b`,
    [plainList(ids)],
  );
  return new Map(rows.map((row) => [row.id, { kind: row.kind, released: row.released, state: stateOf(row) }]));
}
