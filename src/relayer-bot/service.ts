import type { ClaimAuthorization } from '../intents/claim-authorization';
import type { FeedIntent } from '../../workflows/relayer/contract';

/** What the service answered, when it is not 2xx: `status` tells a refusal (409) from a failure. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The service's relayer routes (docs/relayers.md), with this relayer's key. */
export class RelayerApi {
  constructor(
    readonly url: string,
    private readonly key: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { 'x-relayer-key': this.key, ...extra };
  }

  private async get<T>(route: string): Promise<T> {
    const res = await fetch(`${this.url}${route}`, { headers: this.headers(), signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    if (!res.ok) throw new ServiceError(res.status, `GET ${route}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** A page of open intents after `cursor` (from the first without one). */
  page(cursor?: string): Promise<{ intents: FeedIntent[]; nextCursor: string | null }> {
    return this.get(`/relayer/intents?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  }

  claimAuthorization(intentId: string): Promise<ClaimAuthorization> {
    return this.get(`/relayer/intents/${intentId}/claim-authorization`);
  }
}
