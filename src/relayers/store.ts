import type { Db } from '../db/types';
import type { IntentOp, Submission } from '../intents/types';

/** Records a relayer's key (its hash); false when the name is taken. */
export async function insertRelayerKey(
  db: Db,
  name: string,
  keyHash: string,
  keyPrefix: string,
): Promise<string | undefined> {
  const [row]: { id: string }[] = await db.query(
    'INSERT INTO relayer_keys (name, key_hash, key_prefix) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING RETURNING id',
    [name, keyHash, keyPrefix],
  );
  return row?.id;
}

/** Revokes the named relayer's key; whether there was a live one. */
export async function revokeRelayerKey(db: Db, name: string): Promise<boolean> {
  const [, revoked]: [unknown, number] = await db.query(
    'UPDATE relayer_keys SET revoked_at = now() WHERE name = $1 AND revoked_at IS NULL',
    [name],
  );
  return revoked > 0;
}

/** The relayers, with their key's first characters and whether it was revoked. */
export async function listRelayerKeys(
  db: Db,
): Promise<{ name: string; keyPrefix: string; createdAt: string; revoked: boolean }[]> {
  return db.query(
    `SELECT name, key_prefix AS "keyPrefix", to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS "createdAt",
       revoked_at IS NOT NULL AS revoked FROM relayer_keys ORDER BY created_at`,
  );
}

/** The relayer of a live key, by its hash. */
export async function liveRelayer(db: Db, keyHash: string): Promise<{ id: string; name: string } | undefined> {
  const [row]: { id: string; name: string }[] = await db.query(
    'SELECT id, name FROM relayer_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [keyHash],
  );
  return row;
}

export interface OpenIntentRow {
  id: string;
  /** the transaction that accepted it (xid8), the feed's order */
  openedXid: string;
  operation: IntentOp;
  signatures: Submission;
}

/** What a page of the feed is asked for: after a cursor, a destination chain, a token it pays (as a number). */
export interface OpenIntentFilter {
  after?: { xid: string; id: string };
  destinationChainId?: number;
  token?: bigint;
  limit: number;
}

/**
 * Accepted intents nothing has filled, failed or expired yet, with their fill deadline still ahead, in the order of
 * the transactions that accepted them. Only transactions below every one still running are read (pg_snapshot_xmin):
 * an intent whose submit commits after this read has a later place than the page's last, so a cursor never skips it.
 */
export async function openIntents(db: Db, f: OpenIntentFilter): Promise<OpenIntentRow[]> {
  return db.query(
    `SELECT i.id::text, i.opened_xid::text AS "openedXid", i.operation, i.signatures FROM intents i
     WHERE i.status = 'PENDING' AND i.released_at IS NULL AND i.fill_deadline > extract(epoch FROM now())
       AND i.opened_xid < pg_snapshot_xmin(pg_current_snapshot())
       AND ($1::xid8 IS NULL OR (i.opened_xid, i.id) > ($1::xid8, $2::numeric))
       AND ($3::bigint IS NULL OR i.destination_chain_id = $3)
       AND ($4::numeric IS NULL OR EXISTS (
         SELECT 1 FROM jsonb_array_elements(i.operation->'elements'->0->'mandate'->'tokenOut') t
         WHERE mod((t->>0)::numeric, 2::numeric ^ 160) = $4::numeric))
     ORDER BY i.opened_xid, i.id LIMIT $5`,
    [f.after?.xid ?? null, f.after?.id ?? null, f.destinationChainId ?? null, f.token?.toString() ?? null, f.limit],
  );
}

/**
 * Where a stream that names no cursor starts: after every intent the feed can show now, so it sends those accepted
 * from here on (the transactions at or above the oldest one still running).
 */
export async function feedHead(db: Db): Promise<{ xid: string; id: string }> {
  const [{ xid }]: { xid: string }[] = await db.query(
    'SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::numeric - 1)::text AS xid',
  );
  return { xid, id: LAST_ID };
}

/** Above every intent id (a uint256): with a transaction, a cursor after all of that transaction's intents. */
const LAST_ID = (1n << 256n).toString();
