import type { DataSource } from 'typeorm';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Client } from '@temporalio/client';
import type { ChainRegistry } from '../chains/registry';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createMetrics, Metrics } from './metrics';
import { ApiKeyStore } from '../projects/api-keys';
import { RateLimits } from '../projects/rate-limits';
import { UnattributedGate } from '../analytics/unattributed';
import { createOutbox } from '../outbox/owners';
import type { Outbox } from '../outbox/outbox';
import { NonceBlock } from '../ledger/nonces';
import type { Runtime } from '../runtime';
import { ConfigError } from '../config';
import type { VerificationProvider } from '../compliance/provider';
import { SandboxProvider } from '../compliance/sandbox';
import { PersonaProvider } from '../compliance/persona';
import { sessionSigners } from '../deposits/signer';
import { fastAccount } from '../signatures/secp256k1';

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
  /** per-project quotas, counted in PostgreSQL for every API process */
  rateLimits: RateLimits;
  /** meters and caps analytics events sent without an ingest token */
  unattributedAnalytics: UnattributedGate;
  indexerApiKey: string;
  allocatorAddress: `0x${string}`;
  orchestratorAddress: `0x${string}`;
  defaultLockTag: `0x${string}`;
  orchestrator: PrivateKeyAccount;
  allocator: PrivateKeyAccount;
  /** quote nonces, a block of sequence values at a time */
  nonces: NonceBlock;
  /** the time, injectable so tests can move it (session expiry) without sleeping */
  clock: () => Date;
  /** signs compliance session bearers */
  complianceSessionKey: string;
  /** the configured identity provider; undefined when COMPLIANCE_PROVIDER=none */
  compliance?: VerificationProvider;
  /** a project's deposit session signer: signs its accounts' intents once they enabled it (src/deposits/signer.ts) */
  sessionSigner: (projectId: string) => PrivateKeyAccount;
}

function complianceProvider(
  rt: Runtime,
  db: DataSource,
  clock: () => Date,
  logger: Logger,
): VerificationProvider | undefined {
  const c = rt.config.compliance;
  if (c.provider === 'sandbox')
    return new SandboxProvider(db, rt.secrets.complianceSessionKey, c.linkTtlSeconds, clock);
  if (c.provider === 'persona') {
    const { apiKey, templateId, webhookSecret, apiUrl } = c.persona;
    if (!apiKey || !templateId || !webhookSecret)
      throw new ConfigError(
        'COMPLIANCE_PROVIDER=persona needs PERSONA_API_KEY, PERSONA_TEMPLATE_ID and PERSONA_WEBHOOK_SECRET',
      );
    return new PersonaProvider({ apiKey, templateId, webhookSecret, apiUrl }, clock, fetch, (detail, message) =>
      logger.error(detail, message),
    );
  }
  return undefined;
}

/**
 * The timeout of an API process's Temporal calls (createTemporalClient): half the request deadline, so what is left
 * answers (the outbox row keeps the work).
 */
export const temporalCallTimeoutMs = (config: Config): number => config.deadlines.requestSeconds * 500;

export function createServices(rt: Runtime, db: DataSource, temporal: Client, logger: Logger): Services {
  const clock = () => new Date();
  const outbox = createOutbox(db, temporal, rt.config);
  const rateLimits = new RateLimits(db, rt.config.rateLimit.redisUrl);
  return {
    config: rt.config,
    db,
    temporal,
    outbox,
    registry: rt.registry,
    logger,
    metrics: createMetrics(
      () => outbox.pendingStarts,
      () => outbox.deadLetterCounts(),
    ),
    apiKeys: new ApiKeyStore(db),
    rateLimits,
    unattributedAnalytics: new UnattributedGate(db, rateLimits),
    indexerApiKey: rt.secrets.indexerApiKey,
    allocatorAddress: rt.allocatorAddress,
    orchestratorAddress: rt.orchestratorAddress,
    defaultLockTag: rt.defaultLockTag,
    orchestrator: fastAccount(rt.secrets.orchestratorPrivateKey),
    allocator: fastAccount(rt.secrets.allocatorPrivateKey),
    nonces: new NonceBlock(db),
    clock,
    complianceSessionKey: rt.secrets.complianceSessionKey,
    compliance: complianceProvider(rt, db, clock, logger),
    sessionSigner: sessionSigners(rt.secrets.orchestratorPrivateKey),
  };
}
