import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { Init1763800000000 } from './migrations/1763800000000-init';
import { Intents1763900000000 } from './migrations/1763900000000-intents';
import { Withdrawals1764000000000 } from './migrations/1764000000000-withdrawals';
import { RequestPath1764100000000 } from './migrations/1764100000000-request-path';
import { Webhooks1764200000000 } from './migrations/1764200000000-webhooks';
import { Compliance1764300000000 } from './migrations/1764300000000-compliance';
import { RateLimits1764400000000 } from './migrations/1764400000000-rate-limits';
import { Analytics1764500000000 } from './migrations/1764500000000-analytics';
import { Deposits1764600000000 } from './migrations/1764600000000-deposits';
import { Bundles1764700000000 } from './migrations/1764700000000-bundles';
import { RouteGroups1764800000000 } from './migrations/1764800000000-route-groups';
import { DelayedLifecycles1764900000000 } from './migrations/1764900000000-delayed-lifecycles';
import { Sponsorship1765000000000 } from './migrations/1765000000000-sponsorship';
import { ReleaseAfterExpires1765100000000 } from './migrations/1765100000000-release-after-expires';
import { Tenancy1765200000000 } from './migrations/1765200000000-tenancy';
import { OutboxDeadLetters1765300000000 } from './migrations/1765300000000-outbox-dead-letters';
import { VerificationClaims1765400000000 } from './migrations/1765400000000-verification-claims';
import { UnattributedAnalytics1765500000000 } from './migrations/1765500000000-unattributed-analytics';
import { WebhookClaims1765600000000 } from './migrations/1765600000000-webhook-claims';
import { FunnelRollup1765600000001 } from './migrations/1765600000001-funnel-rollup';
import { FunnelMerge1765800000000 } from './migrations/1765800000000-funnel-merge';
import { FunnelFoldQueue1765900000000 } from './migrations/1765900000000-funnel-fold-queue';
import { WebhookDueByEndpoint1766000000000 } from './migrations/1766000000000-webhook-due-by-endpoint';
import { DepositCredit1766100000000 } from './migrations/1766100000000-deposit-credit';
import { AccountProofs1766100000001 } from './migrations/1766100000001-account-proofs';
import { BoundedProofs1766100000002 } from './migrations/1766100000002-bounded-proofs';
import { SnapshotClock1766100000006 } from './migrations/1766100000006-snapshot-clock';
import { LifecycleReleased1766170000000 } from './migrations/1766170000000-lifecycle-released';
import { SweepByDueTime1766170000001 } from './migrations/1766170000001-sweep-by-due-time';
import { Retention1766170000002 } from './migrations/1766170000002-retention';
import { TraceContext1766173300000 } from './migrations/1766173300000-trace-context';
import { UnloggedRateLimits1766173400000 } from './migrations/1766173400000-unlogged-rate-limits';
import { ChainHolds1766173500000 } from './migrations/1766173500000-chain-holds';
import { UnconfirmedBalances1766173600000 } from './migrations/1766173600000-unconfirmed-balances';
import { DepositIdentity1766173700000 } from './migrations/1766173700000-deposit-identity';
import { GoneHolds1766173770000 } from './migrations/1766173770000-gone-holds';
import { UnsupportedTransfers1766173800000 } from './migrations/1766173800000-unsupported-transfers';
import { Relayers1766173900000 } from './migrations/1766173900000-relayers';
import { QuotePlans1766174000000 } from './migrations/1766174000000-quote-plans';

/**
 * How long a query waits for a pooled connection (pg `connectionTimeoutMillis`, also the connect timeout) before it
 * fails: a saturated pool answers 503 with Retry-After (src/http/middleware.ts) instead of queueing forever.
 */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;

/** pg's errors when no pooled connection could be had within the acquire timeout. */
export const isPoolTimeout = (e: unknown) =>
  e instanceof Error &&
  /^(timeout exceeded when trying to connect|Connection terminated due to connection timeout)$/.test(e.message);

/**
 * `acquireTimeoutMs`: see DEFAULT_ACQUIRE_TIMEOUT_MS. `queryTimeoutMs` (API processes): PostgreSQL cancels a
 * statement running longer (statement_timeout, which also bounds lock waits) and the client gives up on one whose
 * server does not answer at all (query_timeout: a paused or unreachable server), so a request's query never outlives
 * its deadline.
 */
export interface PoolTimeouts {
  acquireTimeoutMs?: number;
  queryTimeoutMs?: number;
}

export function createDataSource(url: string, poolSize = 10, timeouts: PoolTimeouts = {}): DataSource {
  const { acquireTimeoutMs = DEFAULT_ACQUIRE_TIMEOUT_MS, queryTimeoutMs } = timeouts;
  return new DataSource({
    type: 'postgres',
    url,
    migrations: [
      Init1763800000000,
      Intents1763900000000,
      Withdrawals1764000000000,
      RequestPath1764100000000,
      Webhooks1764200000000,
      Compliance1764300000000,
      RateLimits1764400000000,
      Analytics1764500000000,
      Deposits1764600000000,
      Bundles1764700000000,
      RouteGroups1764800000000,
      DelayedLifecycles1764900000000,
      Sponsorship1765000000000,
      ReleaseAfterExpires1765100000000,
      Tenancy1765200000000,
      OutboxDeadLetters1765300000000,
      VerificationClaims1765400000000,
      UnattributedAnalytics1765500000000,
      WebhookClaims1765600000000,
      FunnelRollup1765600000001,
      FunnelMerge1765800000000,
      FunnelFoldQueue1765900000000,
      WebhookDueByEndpoint1766000000000,
      DepositCredit1766100000000,
      AccountProofs1766100000001,
      BoundedProofs1766100000002,
      SnapshotClock1766100000006,
      LifecycleReleased1766170000000,
      SweepByDueTime1766170000001,
      Retention1766170000002,
      TraceContext1766173300000,
      UnloggedRateLimits1766173400000,
      ChainHolds1766173500000,
      UnconfirmedBalances1766173600000,
      DepositIdentity1766173700000,
      GoneHolds1766173770000,
      UnsupportedTransfers1766173800000,
      Relayers1766173900000,
      QuotePlans1766174000000,
    ],
    migrationsTransactionMode: 'all',
    synchronize: false,
    logging: false,
    poolSize,
    connectTimeoutMS: acquireTimeoutMs,
    ...(queryTimeoutMs ? { extra: { statement_timeout: queryTimeoutMs, query_timeout: queryTimeoutMs } } : {}),
  });
}

/**
 * Opens the pool and applies pending migrations (concurrent starters serialise on an advisory lock). With
 * `queryTimeoutMs`, migrations (which may take long) run first on a pool without it.
 */
export async function openDatabase(url: string, poolSize?: number, timeouts: PoolTimeouts = {}): Promise<DataSource> {
  if (timeouts.queryTimeoutMs) {
    await (await openDatabase(url, 2, { acquireTimeoutMs: timeouts.acquireTimeoutMs })).destroy();
    return createDataSource(url, poolSize, timeouts).initialize();
  }
  // The lock holds one connection while the migrations use another, so the pool needs at least two.
  const ds = await createDataSource(url, Math.max(poolSize ?? 10, 2), timeouts).initialize();
  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock(727001)');
    await ds.runMigrations({ transaction: 'all' });
    await lock.query('SELECT pg_advisory_unlock(727001)');
  } finally {
    await lock.release();
  }
  return ds;
}
