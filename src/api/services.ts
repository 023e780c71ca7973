import type { Db } from '../db/types';
import { OrderFeedStreams } from '../relayers/feed-stream';
import { RelayerKeyStore } from '../relayers/keys';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createMetrics } from '../http/metrics';
import type { Services } from '../http/services';
import { ApiKeyStore } from '../projects/api-keys';
import { RateLimits } from '../projects/rate-limits';
import { UnattributedGate } from '../analytics/unattributed';
import { createOutbox } from '../intents/outbox-owners';
import { NonceBlock } from '../ledger/nonces';
import type { Runtime } from '../runtime';
import { ConfigError } from '../env';
import type { VerificationProvider } from '../compliance/provider';
import { SandboxProvider } from '../compliance/sandbox';
import { PersonaProvider } from '../compliance/persona';
import { sessionSigners } from '../deposits/signer';
import { fastAccount } from '../signatures/secp256k1';

function complianceProvider(rt: Runtime, db: Db, clock: () => Date, logger: Logger): VerificationProvider | undefined {
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

/** The API process's services, built once by its composition root (src/main/api.ts) and handed to every route. */
export function createServices(rt: Runtime, db: Db, temporal: Client, logger: Logger): Services {
  const clock = () => new Date();
  const outbox = createOutbox(db, temporal, rt.config);
  const rateLimits = new RateLimits(db, rt.config.rateLimit.redisUrl);
  return {
    config: rt.config,
    db,
    temporal,
    outbox,
    registry: rt.registry,
    rpc: rt.rpc,
    logger,
    metrics: createMetrics(
      () => outbox.pendingStarts,
      () => outbox.deadLetterCounts(),
    ),
    apiKeys: new ApiKeyStore(db),
    relayerKeys: new RelayerKeyStore(db),
    relayerFeeds: new OrderFeedStreams(db, rt.config.relayers),
    rateLimits,
    unattributedAnalytics: new UnattributedGate(db, rateLimits),
    indexerApiKey: rt.secrets.indexerApiKey,
    allocatorAddress: rt.allocatorAddress,
    orchestratorAddress: rt.orchestratorAddress,
    defaultLockTag: rt.defaultLockTag,
    orchestrator: fastAccount(rt.secrets.orchestratorPrivateKey),
    allocator: fastAccount(rt.secrets.allocatorPrivateKey),
    ...(rt.secrets.fillAttesterPrivateKey ? { attester: fastAccount(rt.secrets.fillAttesterPrivateKey) } : {}),
    nonces: new NonceBlock(db),
    clock,
    complianceSessionKey: rt.secrets.complianceSessionKey,
    compliance: complianceProvider(rt, db, clock, logger),
    sessionSigner: sessionSigners(rt.secrets.orchestratorPrivateKey),
  };
}
