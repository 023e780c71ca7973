import type { SlotsView } from './slots';

/** An endpoint with due first attempts, and the project it belongs to. */
export interface DueEndpoint {
  endpointId: string;
  projectId: string;
}

/** What a lease may take from one due endpoint. */
export interface LeaseTarget extends DueEndpoint {
  /** at most this many of the endpoint's due deliveries */
  room: number;
  /** at most this many of its project's, over all the project's endpoints */
  allowance: number;
}

/** What a lease may take: up to `limit` due deliveries from `targets`. */
export interface LeaseArgs {
  limit: number;
  /** how long the leased rows stay leased: the attempt's timeout plus WEBHOOK_CLAIM_LEASE_SECONDS */
  leaseSeconds: number;
  targets: LeaseTarget[];
}

/**
 * What a lease of up to `limit` may take from the due endpoints: each endpoint up to its room below `perEndpoint`,
 * each project up to what its share leaves (a project at its share is left out).
 */
export function leaseTargets(due: DueEndpoint[], limit: number, view: SlotsView): LeaseTarget[] {
  return due.flatMap(({ endpointId, projectId }) => {
    const allowance = Math.min(limit, (view.shares.get(projectId) ?? 0) - (view.projects[projectId] ?? 0));
    const room = Math.min(allowance, view.perEndpoint - (view.endpoints[endpointId] ?? 0));
    return room > 0 ? [{ endpointId, projectId, room, allowance }] : [];
  });
}

/**
 * Which finishing attempts wake the lease loop once a lease is done: any, when the total cut the lease short (no slot
 * was free, or it took all it could); else only those of the endpoints left at their share and of the projects left
 * at theirs with due deliveries, which wait for a slot of their own. Waking for any other would lease again for
 * nothing: with one slow endpoint at its share, every other endpoint's finishing attempt would cost a lease.
 */
export type Waiting = 'any' | { endpoints: ReadonlySet<string>; projects: ReadonlySet<string> };

export const waitingAfterLease = (
  totalReached: boolean,
  fullEndpoints: string[],
  projectsAtShare: string[],
): Waiting => (totalReached ? 'any' : { endpoints: new Set(fullEndpoints), projects: new Set(projectsAtShare) });

export const wakes = (waiting: Waiting, endpointId: string, projectId: string): boolean =>
  waiting === 'any' || waiting.endpoints.has(endpointId) || waiting.projects.has(projectId);
