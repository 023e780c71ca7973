import path from 'node:path';
import { ConfigError, int, privateKey, sessionKey, type NodeEnv } from './env';
import { type UnattributedConfig, unattributedConfig } from './analytics/config';
import { type ChainIndexerConfig, chainIndexerConfig } from './chain-indexer/config';
import { type ComplianceConfig, complianceConfig } from './compliance/config';
import { checkDepositHistory, type DepositConfig, depositConfig } from './deposits/config';
import { type DeadlineConfig, httpConfig } from './http/config';
import { type IndexerConfig, indexerConfig } from './ingestion/config';
import type { AddressRange } from './http/client-address';
import { type IntentConfig, intentConfig } from './intents/config';
import { type OutboxConfig, outboxConfig } from './outbox/config';
import { type RateLimitConfig, rateLimitConfig } from './projects/config';
import { type RetentionConfig, retentionConfig } from './retention/config';
import { type RelayerConfig, relayerConfig } from './relayers/config';
import { type VersionsConfig, versionsConfig } from './versions/config';
import { type WebhookConfig, webhookConfig } from './webhooks/config';
import { type AllocatorConfig, allocatorConfig } from './withdrawals/config';
import { type WorkerConfig, workerConfig } from './temporal-sdk/worker-config';

export { ConfigError };
export type { ComplianceConfig, DepositConfig, WebhookConfig };

/**
 * Every setting comes from the environment; docs/configuration.md lists them all (and .env.example). The
 * process-wide ones (ports, database, Temporal, log level, secrets) are read here; each feature's are typed,
 * defaulted and checked in its own folder's `config.ts` (parsers: src/env.ts) and composed below.
 */
export interface Config {
  env: NodeEnv;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  /** how long a query waits for one of the pool's connections before the request answers 503 */
  dbAcquireTimeoutMs: number;
  embeddedPgPort: number;
  temporalAddress?: string;
  temporalNamespace: string;
  taskQueue: string;
  temporalPort: number;
  temporalUiPort: number;
  logLevel: string;
  /** src/http/config.ts */
  bodyLimit: string;
  chainRegistryFile?: string;
  /** src/withdrawals/config.ts */
  allocator: AllocatorConfig;
  /** src/outbox/config.ts */
  outbox: OutboxConfig;
  /** src/http/config.ts */
  deadlines: DeadlineConfig;
  /** src/ingestion/config.ts */
  indexer: IndexerConfig;
  /** src/chain-indexer/config.ts */
  chainIndexer: ChainIndexerConfig;
  /** src/http/config.ts: proxies whose X-Forwarded-For decides a client's address */
  trustedProxies: AddressRange[];
  /** src/intents/config.ts */
  intents: IntentConfig;
  /** src/webhooks/config.ts */
  webhooks: WebhookConfig;
  /** src/compliance/config.ts */
  compliance: ComplianceConfig;
  /** src/deposits/config.ts */
  deposits: DepositConfig;
  /** src/projects/config.ts */
  rateLimit: RateLimitConfig;
  /** src/analytics/config.ts */
  analyticsUnattributed: UnattributedConfig;
  /** src/versions/config.ts */
  versions: VersionsConfig;
  /** src/retention/config.ts */
  retention: RetentionConfig;
  /** src/relayers/config.ts */
  relayers: RelayerConfig;
  /** src/temporal-sdk/worker-config.ts */
  worker: WorkerConfig;
  secrets: Partial<Secrets>;
}

export interface Secrets {
  indexerApiKey: string;
  /** signs compliance session bearers (HS256) */
  complianceSessionKey: string;
  orchestratorPrivateKey: `0x${string}`;
  allocatorPrivateKey: `0x${string}`;
  /** signs fill attestations for the arbiters (INTENT_ARBITER_<chainId>); unset in production without one */
  fillAttesterPrivateKey?: `0x${string}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const config: Config = {
    env: nodeEnv,
    host: env.HOST || '0.0.0.0',
    port: int(env, 'PORT', 3000),
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    dbAcquireTimeoutMs: int(env, 'DB_ACQUIRE_TIMEOUT_MS', 10_000, 100, 600_000),
    embeddedPgPort: int(env, 'EMBEDDED_PG_PORT', 5488),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'orchestrator',
    temporalPort: int(env, 'TEMPORAL_PORT', 7233),
    temporalUiPort: int(env, 'TEMPORAL_UI_PORT', 8233),
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'warn' : 'info'),
    chainRegistryFile: env.CHAIN_REGISTRY_FILE || undefined,
    allocator: allocatorConfig(env),
    outbox: outboxConfig(env),
    ...httpConfig(env),
    indexer: indexerConfig(env),
    chainIndexer: chainIndexerConfig(env),
    intents: intentConfig(env),
    webhooks: webhookConfig(env, nodeEnv),
    compliance: complianceConfig(env, nodeEnv),
    deposits: depositConfig(env),
    analyticsUnattributed: unattributedConfig(env),
    rateLimit: rateLimitConfig(env),
    versions: versionsConfig(env),
    retention: retentionConfig(env),
    relayers: relayerConfig(env),
    worker: workerConfig(env),
    secrets: {
      indexerApiKey: env.INDEXER_API_KEY || undefined,
      complianceSessionKey: sessionKey(env, 'COMPLIANCE_SESSION_KEY'),
      orchestratorPrivateKey: privateKey(env, 'ORCHESTRATOR_PRIVATE_KEY'),
      allocatorPrivateKey: privateKey(env, 'ALLOCATOR_PRIVATE_KEY'),
      fillAttesterPrivateKey: privateKey(env, 'FILL_ATTESTER_PRIVATE_KEY'),
    },
  };
  checkDepositHistory(config.deposits, config.intents.claimWindowSeconds);
  return config;
}

/** Processes started by `npm start` and by the test harness get the resolved settings through their environment. */
export function toEnv(config: Config, secrets: Secrets): Record<string, string> {
  return {
    NODE_ENV: config.env,
    DATA_DIR: config.dataDir,
    ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : {}),
    ...(config.temporalAddress ? { TEMPORAL_ADDRESS: config.temporalAddress } : {}),
    TEMPORAL_NAMESPACE: config.temporalNamespace,
    TEMPORAL_TASK_QUEUE: config.taskQueue,
    LOG_LEVEL: config.logLevel,
    OUTBOX_SWEEP_SECONDS: String(config.outbox.sweepSeconds),
    OUTBOX_GRACE_SECONDS: String(config.outbox.graceSeconds),
    OUTBOX_MAX_ATTEMPTS: String(config.outbox.maxAttempts),
    INDEXER_API_KEY: secrets.indexerApiKey,
    COMPLIANCE_SESSION_KEY: secrets.complianceSessionKey,
    ORCHESTRATOR_PRIVATE_KEY: secrets.orchestratorPrivateKey,
    ALLOCATOR_PRIVATE_KEY: secrets.allocatorPrivateKey,
    ...(secrets.fillAttesterPrivateKey ? { FILL_ATTESTER_PRIVATE_KEY: secrets.fillAttesterPrivateKey } : {}),
  };
}
