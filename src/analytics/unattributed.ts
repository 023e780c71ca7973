import type { Db } from '../db/types';
import { DomainError } from '../errors';
import type { RateLimits } from '../projects/rate-limits';
import type { UnattributedConfig } from './config';
import { unattributedRows } from './store';

/** How long a process trusts its count of stored unattributed rows (one index-only count per interval). */
const COUNT_TTL_MS = 60_000;

/**
 * Events sent without an ingest token are kept for diagnosis only (nobody's funnel reads them): they are metered per
 * client address and per origin (each batch costs its number of events, in the shared rate-limit store), and
 * refused once the stored unattributed rows reach their cap. Refusals are 429 with Retry-After; attributed events
 * (a valid token) are never metered here.
 */
export class UnattributedGate {
  private stored?: { count: number; at: number };

  constructor(
    private readonly db: Db,
    private readonly rateLimits: RateLimits,
  ) {}

  async admit(limits: UnattributedConfig, address: string, origin: string, events: number): Promise<void> {
    for (const [prefix, points, key] of [
      ['analytics-address', limits.perAddressPerMinute, address],
      ['analytics-origin', limits.perOriginPerMinute, origin || 'none'],
    ] as const) {
      const wait = await this.rateLimits.counter(prefix, points, 60)(key, events);
      if (wait) {
        throw new DomainError(
          'TOO_MANY_REQUESTS',
          'Too Many Requests: events without an ingest token are metered per client address and origin',
          { retryAfterSeconds: wait },
        );
      }
    }
    if ((await this.storedRows()) >= limits.cap) {
      throw new DomainError(
        'TOO_MANY_REQUESTS',
        'Unattributed analytics storage is full: send events with an ingest token',
        { retryAfterSeconds: COUNT_TTL_MS / 1000 },
      );
    }
  }

  private async storedRows(): Promise<number> {
    if (this.stored && Date.now() - this.stored.at < COUNT_TTL_MS) return this.stored.count;
    this.stored = { count: await unattributedRows(this.db), at: Date.now() };
    return this.stored.count;
  }
}
