import { WITHOUT_FLUSH_WAIT } from '../db/prepared';
import type { SlotsView } from './slots';

/** An endpoint with due first attempts, and the project it belongs to. */
export interface DueEndpoint {
  endpointId: string;
  projectId: string;
}

/**
 * The endpoints with due first attempts, but those in `$1` (at their share in this process), with their projects.
 * The endpoints come from a loose index scan over those with pending deliveries (one descent each), and each is
 * checked for a due one with one probe of its own index range, so the cost is the number of endpoints with pending
 * deliveries, never one endpoint's backlog.
 */
export const DUE_SQL = `WITH RECURSIVE endpoints AS (
    (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND workflow_id IS NULL ORDER BY endpoint_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.workflow_id IS NULL AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
    FROM endpoints p WHERE p.endpoint_id IS NOT NULL)
  SELECT p.endpoint_id AS "endpointId", en.project_id AS "projectId"
  FROM endpoints p JOIN webhook_endpoints en ON en.id = p.endpoint_id
  WHERE NOT (p.endpoint_id = ANY($1::uuid[])) AND EXISTS (
    SELECT 1 FROM webhook_deliveries d
    WHERE d.endpoint_id = p.endpoint_id AND d.status = 'pending' AND d.workflow_id IS NULL AND d.next_attempt_at <= now())`;

/** What a claim may take from one due endpoint. */
export interface ClaimTarget extends DueEndpoint {
  /** at most this many of the endpoint's due deliveries */
  room: number;
  /** at most this many of its project's, over all the project's endpoints */
  allowance: number;
}

/** What a claim may take: up to `limit` due deliveries from `targets`. */
export interface ClaimArgs {
  limit: number;
  /** how long the claimed rows stay leased: the attempt's timeout plus the lease */
  leaseSeconds: number;
  targets: ClaimTarget[];
}

/**
 * Claims due first attempts and returns what each sends (a `Claim`). Each target endpoint gives its oldest due
 * deliveries (by due time, then creation) up to its room, read from the endpoint's own index range, so the cost is
 * what the targets give and never one endpoint's backlog; each project keeps its oldest up to its allowance. Projects
 * take turns (every project's oldest, then every project's second, …) up to `limit`, so one whose backlog is older
 * does not take the slots another's newer deliveries wait for. The chosen rows are locked `SKIP LOCKED` one by one on
 * the primary key, and leased. Candidates are read unlocked so that rows past `limit` are not locked for nothing; one
 * another worker locked or leased meanwhile is skipped or fails the recheck of `next_attempt_at`.
 */
export const CLAIM_SQL = `WITH targets AS (
    SELECT * FROM unnest($3::uuid[], $4::int[], $5::uuid[], $6::int[]) AS t(endpoint_id, room, project_id, allowance)),
  candidates AS (
    SELECT c.event_seq, c.endpoint_id FROM (
      SELECT d.event_seq, d.endpoint_id, d.next_attempt_at, t.allowance,
        row_number() OVER (PARTITION BY t.project_id ORDER BY d.next_attempt_at, d.event_seq) AS turn
      FROM targets t CROSS JOIN LATERAL (
        SELECT d.event_seq, d.endpoint_id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = t.endpoint_id AND d.status = 'pending' AND d.workflow_id IS NULL AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at, d.event_seq LIMIT t.room) d) c
    WHERE c.turn <= c.allowance
    ORDER BY c.turn, c.next_attempt_at, c.event_seq LIMIT $1),
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

export const claimValues = (a: ClaimArgs): unknown[] => [
  a.limit,
  a.leaseSeconds,
  a.targets.map((t) => t.endpointId),
  a.targets.map((t) => t.room),
  a.targets.map((t) => t.projectId),
  a.targets.map((t) => t.allowance),
];

/**
 * What a claim of up to `limit` may take from the due endpoints: each endpoint up to its room below `perEndpoint`,
 * each project up to what its share leaves (a project at its share is left out).
 */
export function claimTargets(due: DueEndpoint[], limit: number, view: SlotsView): ClaimTarget[] {
  return due.flatMap(({ endpointId, projectId }) => {
    const allowance = Math.min(limit, (view.shares.get(projectId) ?? 0) - (view.projects[projectId] ?? 0));
    const room = Math.min(allowance, view.perEndpoint - (view.endpoints[endpointId] ?? 0));
    return room > 0 ? [{ endpointId, projectId, room, allowance }] : [];
  });
}

/**
 * Which finishing attempts wake the claim loop once a claim is done: any, when the total cut the claim short (no slot
 * was free, or it took all it could); else only those of the endpoints left at their share and of the projects left
 * at theirs with due deliveries, which wait for a slot of their own. Waking for any other would claim again for
 * nothing: with one slow endpoint at its share, every other endpoint's finishing attempt would cost a claim.
 */
export type Waiting = 'any' | { endpoints: ReadonlySet<string>; projects: ReadonlySet<string> };

export const waitingAfterClaim = (
  totalReached: boolean,
  fullEndpoints: string[],
  projectsAtShare: string[],
): Waiting => (totalReached ? 'any' : { endpoints: new Set(fullEndpoints), projects: new Set(projectsAtShare) });

export const wakes = (waiting: Waiting, endpointId: string, projectId: string): boolean =>
  waiting === 'any' || waiting.endpoints.has(endpointId) || waiting.projects.has(projectId);
