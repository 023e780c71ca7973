import { WITHOUT_FLUSH_WAIT } from '../db/prepared';

/** What a claim may take: up to `limit` due deliveries, no endpoint past `share` counting `inFlight` in this process. */
export interface ClaimArgs {
  limit: number;
  /** how long the claimed rows stay leased: the attempt's timeout plus the lease */
  leaseSeconds: number;
  /** endpoints at their share in this process: left out */
  full: string[];
  inFlight: Record<string, number>;
  share: number;
}

/**
 * Claims due first attempts and returns what each sends (a `Claim`). It reads each endpoint's due deliveries from the
 * endpoint's own index range, so its cost is the number of endpoints with pending deliveries plus what it takes, and
 * never one endpoint's backlog (a scan in due order walked every row of an endpoint at its share on every claim).
 * The endpoints come from a loose index scan (one descent each); each gives its oldest due deliveries up to its
 * share; the oldest of those (by due time, then creation) are locked `SKIP LOCKED` one by one on the primary key, and
 * leased. Candidates are read unlocked so that rows past `limit` are not locked for nothing; one another worker
 * locked or leased meanwhile is skipped or fails the recheck of `next_attempt_at`.
 */
export const CLAIM_SQL = `WITH RECURSIVE endpoints AS (
    (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND workflow_id IS NULL ORDER BY endpoint_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.workflow_id IS NULL AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
    FROM endpoints p WHERE p.endpoint_id IS NOT NULL),
  candidates AS (
    SELECT c.event_seq, c.endpoint_id FROM endpoints p CROSS JOIN LATERAL (
      SELECT d.event_seq, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
      WHERE d.endpoint_id = p.endpoint_id AND d.status = 'pending' AND d.workflow_id IS NULL AND d.next_attempt_at <= now()
      ORDER BY d.next_attempt_at, d.event_seq
      LIMIT greatest(0, least($1, $5 - coalesce(($4::jsonb ->> p.endpoint_id::text)::int, 0)))) c
    WHERE p.endpoint_id IS NOT NULL AND NOT (p.endpoint_id = ANY($3::uuid[]))
    ORDER BY c.next_attempt_at, c.event_seq LIMIT $1),
  due AS (
    SELECT l.ctid FROM candidates c CROSS JOIN LATERAL (
      SELECT d.ctid FROM webhook_deliveries d
      WHERE d.event_seq = c.event_seq AND d.endpoint_id = c.endpoint_id
        AND d.status = 'pending' AND d.workflow_id IS NULL AND d.next_attempt_at <= now()
      FOR UPDATE SKIP LOCKED) l)
  UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $2)
  FROM webhook_events e, webhook_endpoints en, ${WITHOUT_FLUSH_WAIT}
  WHERE d.ctid = ANY (ARRAY(SELECT ctid FROM due)) AND e.seq = d.event_seq AND en.id = d.endpoint_id
  RETURNING e.event_id AS "eventId", d.endpoint_id AS "endpointId", d.round, e.seq, e.project_id, e.type, e.payload, e.test, e.created_at,
    en.url, en.secret, en.previous_secret, coalesce(en.previous_secret_expires_at > now(), false) AS previous_live, en.disabled_at, en.removed_at`;

export const claimValues = (a: ClaimArgs): unknown[] => [a.limit, a.leaseSeconds, a.full, JSON.stringify(a.inFlight), a.share];

/**
 * Which finishing attempts wake the claim loop once a claim is done: any, when the total cut the claim short (no slot
 * was free, or it took all it could); else only those of the endpoints left at their share, whose due deliveries wait
 * for a slot of their own. Waking for any other would claim again for nothing: with one slow endpoint at its share,
 * every other endpoint's finishing attempt would cost a claim.
 */
export type Waiting = 'any' | ReadonlySet<string>;

export const waitingAfterClaim = (totalReached: boolean, full: string[]): Waiting => (totalReached ? 'any' : new Set(full));

export const wakes = (waiting: Waiting, endpointId: string): boolean => waiting === 'any' || waiting.has(endpointId);
