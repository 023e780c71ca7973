import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { entities } from './entities';
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
import { WebhookClaims1765600000000 } from './migrations/1765600000000-webhook-claims';
import { FunnelRollup1765600000001 } from './migrations/1765600000001-funnel-rollup';

export function createDataSource(url: string, poolSize = 10): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations: [Init1763800000000, Intents1763900000000, Withdrawals1764000000000, RequestPath1764100000000, Webhooks1764200000000, Compliance1764300000000, RateLimits1764400000000, Analytics1764500000000, Deposits1764600000000, Bundles1764700000000, RouteGroups1764800000000, DelayedLifecycles1764900000000, WebhookClaims1765600000000, FunnelRollup1765600000001],
    migrationsTransactionMode: 'all',
    synchronize: false,
    logging: false,
    poolSize,
  });
}

/** Opens the pool and applies pending migrations (concurrent starters serialise on an advisory lock). */
export async function openDatabase(url: string, poolSize?: number): Promise<DataSource> {
  // The lock holds one connection while the migrations use another, so the pool needs at least two.
  const ds = await createDataSource(url, Math.max(poolSize ?? 10, 2)).initialize();
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
