import type { WebhookConfig } from './config';
import { fairShares, type ProjectLoad } from './shares';

/** Where a worker's slots stand: attempts in flight by endpoint and by project, and each project's share. */
export interface SlotsView {
  perEndpoint: number;
  endpoints: Record<string, number>;
  projects: Record<string, number>;
  shares: ReadonlyMap<string, number>;
}

/**
 * Attempts in flight in this process, shared by the lease loop (first attempts) and the retry activity: at most
 * `total` in all (the lease loop's bound; the retry activity's is its task queue's slots), `perEndpoint` per endpoint,
 * and per project its fair share (`fairShares`) among the projects that wait for a slot, hold one, or held some in the
 * last `reserveMs`. An endpoint or project at its share gets no more until one returns (the lease loop leaves its due
 * deliveries in the table; the activity fails retryably and Temporal retries it on its backoff), so a slow receiver
 * holds a bounded number of slots and no project's receivers hold the slots other tenants' deliveries wait for.
 */
export class AttemptSlots {
  private readonly byEndpoint = new Map<string, number>();
  private readonly byProject = new Map<string, number>();
  /**
   * Per project, the in-flight counts it reached in the last `reserveMs`, oldest first, each higher than every later
   * one (a sliding maximum: the first is the project's reserve).
   */
  private readonly peaks = new Map<string, { at: number; level: number }[]>();
  /** the projects the lease loop last found with due deliveries */
  private waiting = new Set<string>();
  private count = 0;

  constructor(
    readonly total: number,
    readonly perEndpoint: number,
    private readonly reserveMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a slot for an attempt to `endpointId`, a receiver of `projectId`, if neither is at its share. */
  tryTake(endpointId: string, projectId: string): boolean {
    const n = this.byEndpoint.get(endpointId) ?? 0;
    const held = this.byProject.get(projectId) ?? 0;
    if (n >= this.perEndpoint || held >= this.sharesWith(new Set([...this.waiting, projectId])).get(projectId)!)
      return false;
    this.byEndpoint.set(endpointId, n + 1);
    this.byProject.set(projectId, held + 1);
    this.count++;
    this.recordPeak(projectId, held + 1);
    return true;
  }

  give(endpointId: string, projectId: string): void {
    for (const [map, key] of [
      [this.byEndpoint, endpointId],
      [this.byProject, projectId],
    ] as const) {
      const n = (map.get(key) ?? 1) - 1;
      if (n > 0) map.set(key, n);
      else map.delete(key);
    }
    this.count--;
  }

  /** attempts in flight in all */
  get inFlight(): number {
    return this.count;
  }

  /** the endpoints at their share */
  fullEndpoints(): string[] {
    return [...this.byEndpoint].filter(([, n]) => n >= this.perEndpoint).map(([id]) => id);
  }

  /**
   * Notes the projects with due deliveries (the lease loop's look at the table, which the retry activity's takes go
   * by until the next), and returns where the slots stand with them waiting.
   */
  look(waiting: Iterable<string>): SlotsView {
    this.waiting = new Set(waiting);
    return {
      perEndpoint: this.perEndpoint,
      endpoints: Object.fromEntries(this.byEndpoint),
      projects: Object.fromEntries(this.byProject),
      shares: this.sharesWith(this.waiting),
    };
  }

  /** the waiting projects (as last looked at) that hold their share: an attempt of theirs that ends frees a slot they wait for */
  waitingAtShare(): string[] {
    const shares = this.sharesWith(this.waiting);
    return [...this.waiting].filter((p) => (this.byProject.get(p) ?? 0) >= shares.get(p)!);
  }

  private sharesWith(waiting: ReadonlySet<string>): Map<string, number> {
    const loads = new Map<string, ProjectLoad>();
    for (const p of new Set([...waiting, ...this.byProject.keys(), ...this.peaks.keys()])) {
      const reserve = this.reserve(p);
      const inFlight = this.byProject.get(p) ?? 0;
      if (waiting.has(p) || inFlight || reserve) loads.set(p, { inFlight, waiting: waiting.has(p), reserve });
    }
    return fairShares(this.total, loads);
  }

  private recordPeak(projectId: string, level: number): void {
    const peaks = this.peaks.get(projectId) ?? [];
    while (peaks.length && peaks[peaks.length - 1].level <= level) peaks.pop();
    peaks.push({ at: this.now(), level });
    this.peaks.set(projectId, peaks);
  }

  /** the most the project had in flight at once in the last `reserveMs` (older peaks are forgotten here) */
  private reserve(projectId: string): number {
    const peaks = this.peaks.get(projectId);
    if (!peaks) return 0;
    const since = this.now() - this.reserveMs;
    while (peaks.length && peaks[0].at < since) peaks.shift();
    if (!peaks.length) this.peaks.delete(projectId);
    return peaks[0]?.level ?? 0;
  }
}

/** A worker process's slots, as configured (docs/configuration.md: WEBHOOK_*). */
export const workerSlots = (c: Pick<WebhookConfig, 'concurrency' | 'endpointConcurrency' | 'projectReserveSeconds'>) =>
  new AttemptSlots(c.concurrency, c.endpointConcurrency, c.projectReserveSeconds * 1000);
