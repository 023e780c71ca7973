import type { Db } from '../db/types';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Client } from '@temporalio/client';
import type { ChainRegistry } from '../chains/registry';
import type { ChainRpc } from '../chains/rpc';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Metrics } from './metrics';
import type { ApiKeyStore } from '../projects/api-keys';
import type { RateLimits } from '../projects/rate-limits';
import type { UnattributedGate } from '../analytics/unattributed';
import type { Outbox } from '../outbox/outbox';
import type { NonceBlock } from '../ledger/nonces';
import type { VerificationProvider } from '../compliance/provider';

/** What handlers may use: the DB for reads, Temporal for lifecycles, and read-only configuration. */
export interface Services {
  config: Config;
  db: Db;
  temporal: Client;
  /** performs workflow starts and signals recorded with a transaction (src/outbox/outbox.ts) */
  outbox: Outbox;
  registry: ChainRegistry;
  /** the chains this process reads (RPC_URL_<chainId>): signature checks, gas prices */
  rpc: ChainRpc;
  logger: Logger;
  metrics: Metrics;
  apiKeys: ApiKeyStore;
  /** relayers' keys, issued by the operator: they read the order feed and claim authorizations */
  relayerKeys: { resolve(key: string): Promise<{ id: string; name: string } | null> };
  /** the order feed's open streams (src/relayers/feed-stream.ts), ended at shutdown */
  relayerFeeds: {
    stream(
      relayerId: string,
      filter: { destinationChainId?: number; token?: bigint },
      after: { xid: string; id: string },
    ): NodeJS.ReadableStream;
    endAll(): void;
  };
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
  /** signs fill attestations for our arbiters (INTENT_ARBITER_<chainId>); absent in production without one */
  attester?: PrivateKeyAccount;
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
