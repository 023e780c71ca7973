import type { DataSource } from 'typeorm';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Client } from '@temporalio/client';
import type { ChainRegistry } from '../chains/registry';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createMetrics, Metrics } from './metrics';
import { ApiKeyStore } from '../projects/api-keys';
import { Outbox } from '../outbox/outbox';
import { NonceBlock } from '../ledger/nonces';
import type { Runtime } from '../runtime';

/** What handlers may use: the DB for reads, Temporal for lifecycles, and read-only configuration. */
export interface Services {
  config: Config;
  db: DataSource;
  temporal: Client;
  /** performs workflow starts and signals recorded with a transaction (src/outbox/outbox.ts) */
  outbox: Outbox;
  registry: ChainRegistry;
  logger: Logger;
  metrics: Metrics;
  apiKeys: ApiKeyStore;
  indexerApiKey: string;
  allocatorAddress: `0x${string}`;
  orchestratorAddress: `0x${string}`;
  defaultLockTag: `0x${string}`;
  orchestrator: PrivateKeyAccount;
  allocator: PrivateKeyAccount;
  /** quote nonces, a block of sequence values at a time */
  nonces: NonceBlock;
}

export function createServices(rt: Runtime, db: DataSource, temporal: Client, logger: Logger): Services {
  return {
    config: rt.config,
    db,
    temporal,
    outbox: new Outbox(db, temporal, rt.config.taskQueue),
    registry: rt.registry,
    logger,
    metrics: createMetrics(),
    apiKeys: new ApiKeyStore(db),
    indexerApiKey: rt.secrets.indexerApiKey,
    allocatorAddress: rt.allocatorAddress,
    orchestratorAddress: rt.orchestratorAddress,
    defaultLockTag: rt.defaultLockTag,
    orchestrator: privateKeyToAccount(rt.secrets.orchestratorPrivateKey),
    allocator: privateKeyToAccount(rt.secrets.allocatorPrivateKey),
    nonces: new NonceBlock(db),
  };
}
