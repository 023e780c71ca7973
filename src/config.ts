import path from 'node:path';
import { depositTurns, MAX_DEPOSIT_TURNS } from '../workflows/deposit-state';

/** Every setting comes from the environment; the README's configuration table lists them all. */
export interface Config {
  env: 'development' | 'production' | 'test';
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
  bodyLimit: string;
  chainRegistryFile?: string;
  allocator: { lockTag?: string; scope: 0 | 1; resetPeriod: number; compactAddress: `0x${string}`; withdrawalExpirySeconds: number; maxOutstandingWithdrawals: number };
  /**
   * the outbox sweeper: how often it runs, how old a row must be before it takes it over from its request, and how
   * many refusals by Temporal dead-letter a row
   */
  outbox: { sweepSeconds: number; graceSeconds: number; maxAttempts: number };
  /** how long a request may take before it is answered 503 (src/http/deadline.ts) */
  deadlines: { requestSeconds: number; externalSeconds: number };
  intents: {
    quoteTtlSeconds: number;
    fillWindowSeconds: number;
    claimWindowSeconds: number;
    /** how long after the fill deadline a fill (with an on-chain timestamp before it) may still arrive */
    fillGraceSeconds: number;
    /** verifyingContract of the MultichainCompact domain the client signs (not the canonical Compact; see README) */
    compactSigningContract: `0x${string}`;
    arbiter: `0x${string}`;
  };
  webhooks: WebhookConfig;
  compliance: ComplianceConfig;
  deposits: DepositConfig;
  /** default per-project quota on API-key routes (a project may have its own: `npm run cli -- projects limit`) */
  rateLimit: { rps: number; burst: number; redisUrl?: string };
  /** analytics events sent without an ingest token: events per minute per client address and per origin, rows kept */
  analyticsUnattributed: { perAddressPerMinute: number; perOriginPerMinute: number; cap: number };
  /** the deprecation notice alps responses carry (Deprecation, Sunset, Link headers) */
  versions: { alpsDeprecatedAt: Date; alpsSunsetAt?: Date; alpsMigrationUrl: string };
  secrets: Partial<Secrets>;
}

export interface ComplianceConfig {
  /** which identity provider hosts verification; `none` answers 503 */
  provider: 'sandbox' | 'persona' | 'none';
  /** a switch that answers 503 to new verification calls (e.g. during a provider incident) */
  paused: boolean;
  /** how long a hosted verification link is offered for */
  linkTtlSeconds: number;
  /** a verification pending (waiting for the customer or in review) this long is marked stale and reported */
  pendingTimeoutSeconds: number;
  /** CSP frame-ancestors of the sandbox's hosted page: the origins that may embed it */
  frameAncestors: string;
  /** this API's public base URL, for hosted links and provider callbacks (default: the request's own origin) */
  publicUrl?: string;
  persona: { apiUrl: string; apiKey?: string; templateId?: string; webhookSecret?: string };
}

/** The deposit processor's thresholds (README: Deposit processor → Configuration). */
export interface DepositConfig {
  /** deposits worth less (USD, indexer prices else the defaults) are rejected with BALANCE-4 */
  minUsd: number;
  /** received → bridge started: past this, `deposit-delayed` (once) */
  expectedSeconds: number;
  /** bridge started → settled: past this, `bridge-delayed` (once per attempt) */
  bridgeExpectedSeconds: number;
  /** the fill deadline of a deposit's intent, from its quote */
  bridgeTimeoutSeconds: number;
  /** fresh-quote retries after a failed bridge before the deposit is refunded */
  bridgeRetries: number;
  /** pause between attempts to quote while the funds or a route are not there yet */
  retrySeconds: number;
  /** how long a deposit waits for its funds to show in the account's balance (then BALANCE-1) */
  fundsWaitSeconds: number;
  /** refund intents tried before a refund is left to a transfer made outside (`deposit-refund`) */
  refundAttempts: number;
}

export interface WebhookConfig {
  /** per attempt: connect, send and the receiver's answer */
  timeoutSeconds: number;
  /** seconds between attempts (the first attempt is immediate), jittered by up to a tenth */
  retryDelaysSeconds: number[];
  /** an endpoint that has failed every attempt for this long is disabled */
  disableAfterSeconds: number;
  /** how long a rotated-out secret still signs (both signatures are sent) */
  secretOverlapSeconds: number;
  /** SSRF policy: plain http, loopback and private targets are refused unless allowed */
  allowHttp: boolean;
  allowLoopback: boolean;
  allowPrivate: boolean;
  /** attempts in flight per worker process, in all and per endpoint */
  concurrency: number;
  endpointConcurrency: number;
  /** a claimed first attempt whose worker went silent is claimed again this long after the attempt's timeout */
  claimLeaseSeconds: number;
}

export interface Secrets {
  indexerApiKey: string;
  /** signs compliance session bearers (HS256) */
  complianceSessionKey: string;
  orchestratorPrivateKey: `0x${string}`;
  allocatorPrivateKey: `0x${string}`;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = 65535): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

/** Svix's schedule continued daily, about 3 days in all: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 24 h, 24 h. */
const DEFAULT_RETRY_DELAYS = '5,300,1800,7200,18000,36000,36000,86400,86400';

function seconds(env: NodeJS.ProcessEnv, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (values.length > 30 || values.some((v) => !Number.isInteger(v) || v < 0 || v > 604_800)) {
    throw new ConfigError(`${name} must be up to 30 comma-separated whole seconds (each at most a week), got "${raw}"`);
  }
  return values;
}

function dateVar(env: NodeJS.ProcessEnv, name: string, fallback?: string): Date | undefined {
  const raw = env[name] || fallback;
  if (!raw) return undefined;
  const date = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(date.getTime())) throw new ConfigError(`${name} must be an ISO 8601 date, got "${raw}"`);
  return date;
}

function usd(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]{1,9}(\.[0-9]{1,6})?$/.test(raw)) throw new ConfigError(`${name} must be a non-negative USD amount (e.g. 1 or 0.5), got "${raw}"`);
  return Number(raw);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name] || fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function sessionKey(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (raw.length < 32) throw new ConfigError(`${name} must be at least 32 characters (an HS256 key)`);
  return raw;
}

function privateKey(env: NodeJS.ProcessEnv, name: string): `0x${string}` | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) throw new ConfigError(`${name} must be a 0x-prefixed 32-byte hex private key`);
  return raw as `0x${string}`;
}

function addressVar(env: NodeJS.ProcessEnv, name: string, fallback: `0x${string}`): `0x${string}` {
  const raw = env[name] || fallback;
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw new ConfigError(`${name} must be a 0x-prefixed 20-byte address`);
  return raw as `0x${string}`;
}

/** Refuses deposit settings under which one deposit's workflow history could outgrow Temporal's limit. */
function checkDepositHistory(config: Config): Config {
  const turns = depositTurns(config.deposits, config.intents.claimWindowSeconds);
  if (turns > MAX_DEPOSIT_TURNS) {
    throw new ConfigError(`DEPOSIT_FUNDS_WAIT_SECONDS / DEPOSIT_RETRY_SECONDS, DEPOSIT_BRIDGE_TIMEOUT_SECONDS + INTENT_CLAIM_WINDOW_SECONDS and DEPOSIT_BRIDGE_RETRIES or DEPOSIT_REFUND_ATTEMPTS allow ${turns} waiting turns in one deposit's workflow, at most ${MAX_DEPOSIT_TURNS} (its Temporal history would outgrow the limit)`);
  }
  return config;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const lockTag = env.ALLOCATOR_LOCK_TAG;
  if (lockTag !== undefined && lockTag !== '' && !/^0x[0-9a-fA-F]{24}$/.test(lockTag)) {
    throw new ConfigError('ALLOCATOR_LOCK_TAG must be a 0x-prefixed 12-byte hex value');
  }
  return checkDepositHistory({
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
    bodyLimit: env.BODY_LIMIT || '1mb',
    chainRegistryFile: env.CHAIN_REGISTRY_FILE || undefined,
    allocator: {
      lockTag: lockTag ? lockTag.toLowerCase() : undefined,
      scope: int(env, 'ALLOCATOR_SCOPE', 0, 0, 1) as 0 | 1,
      resetPeriod: int(env, 'ALLOCATOR_RESET_PERIOD', 6, 0, 7),
      compactAddress: addressVar(env, 'COMPACT_ADDRESS', '0x00000000000000171ede64904551eeDF3C6C9788'),
      withdrawalExpirySeconds: int(env, 'WITHDRAWAL_EXPIRY_SECONDS', 600, 1, 2_592_000),
      maxOutstandingWithdrawals: int(env, 'WITHDRAWAL_MAX_OUTSTANDING', 10, 1, 10_000),
    },
    outbox: {
      sweepSeconds: int(env, 'OUTBOX_SWEEP_SECONDS', 15, 1, 3600),
      graceSeconds: int(env, 'OUTBOX_GRACE_SECONDS', 10, 0, 3600),
      maxAttempts: int(env, 'OUTBOX_MAX_ATTEMPTS', 10, 1, 100),
    },
    deadlines: {
      requestSeconds: int(env, 'REQUEST_DEADLINE_SECONDS', 5, 1, 600),
      externalSeconds: int(env, 'EXTERNAL_DEADLINE_SECONDS', 15, 1, 600),
    },
    intents: {
      quoteTtlSeconds: int(env, 'INTENT_QUOTE_TTL_SECONDS', 300, 1, 86_400),
      fillWindowSeconds: int(env, 'INTENT_FILL_WINDOW_SECONDS', 600, 1, 86_400),
      claimWindowSeconds: int(env, 'INTENT_CLAIM_WINDOW_SECONDS', 3600, 1, 2_592_000),
      fillGraceSeconds: int(env, 'INTENT_FILL_GRACE_SECONDS', 30, 0, 3600),
      compactSigningContract: addressVar(env, 'COMPACT_SIGNING_CONTRACT', '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f'),
      arbiter: addressVar(env, 'INTENT_ARBITER', '0x000000000006e2569CaF8Ff021810790e0A0D740'),
    },
    webhooks: {
      timeoutSeconds: int(env, 'WEBHOOK_TIMEOUT_SECONDS', 10, 1, 60),
      retryDelaysSeconds: seconds(env, 'WEBHOOK_RETRY_DELAYS', DEFAULT_RETRY_DELAYS),
      disableAfterSeconds: int(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', 5 * 86_400, 1, 90 * 86_400),
      secretOverlapSeconds: int(env, 'WEBHOOK_SECRET_OVERLAP_SECONDS', 86_400, 0, 30 * 86_400),
      allowHttp: bool(env, 'WEBHOOK_ALLOW_HTTP', nodeEnv !== 'production'),
      allowLoopback: bool(env, 'WEBHOOK_ALLOW_LOOPBACK', nodeEnv !== 'production'),
      allowPrivate: bool(env, 'WEBHOOK_ALLOW_PRIVATE', false),
      concurrency: int(env, 'WEBHOOK_CONCURRENCY', 200, 1, 10_000),
      endpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 10, 1, 1000),
      claimLeaseSeconds: int(env, 'WEBHOOK_CLAIM_LEASE_SECONDS', 30, 1, 3600),
    },
    compliance: {
      provider: oneOf(env, 'COMPLIANCE_PROVIDER', ['sandbox', 'persona', 'none'] as const, nodeEnv === 'production' ? 'none' : 'sandbox'),
      paused: bool(env, 'COMPLIANCE_SESSIONS_PAUSED', false),
      linkTtlSeconds: int(env, 'COMPLIANCE_LINK_TTL_SECONDS', 600, 30, 86_400),
      pendingTimeoutSeconds: int(env, 'COMPLIANCE_PENDING_TIMEOUT_SECONDS', 7 * 86_400, 1, 90 * 86_400),
      frameAncestors: env.COMPLIANCE_FRAME_ANCESTORS || "'self' http://localhost:* http://127.0.0.1:*",
      publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined,
      persona: {
        apiUrl: env.PERSONA_API_URL || 'https://withpersona.com/api/v1',
        apiKey: env.PERSONA_API_KEY || undefined,
        templateId: env.PERSONA_TEMPLATE_ID || undefined,
        webhookSecret: env.PERSONA_WEBHOOK_SECRET || undefined,
      },
    },
    deposits: {
      minUsd: usd(env, 'DEPOSIT_MIN_USD', 1),
      expectedSeconds: int(env, 'DEPOSIT_EXPECTED_SECONDS', 120, 1, 86_400),
      bridgeExpectedSeconds: int(env, 'DEPOSIT_BRIDGE_EXPECTED_SECONDS', 300, 1, 86_400),
      bridgeTimeoutSeconds: int(env, 'DEPOSIT_BRIDGE_TIMEOUT_SECONDS', 1800, 2, 86_400),
      bridgeRetries: int(env, 'DEPOSIT_BRIDGE_RETRIES', 2, 0, 20),
      retrySeconds: int(env, 'DEPOSIT_RETRY_SECONDS', 10, 1, 3600),
      fundsWaitSeconds: int(env, 'DEPOSIT_FUNDS_WAIT_SECONDS', 3600, 1, 7 * 86_400),
      refundAttempts: int(env, 'DEPOSIT_REFUND_ATTEMPTS', 5, 1, 100),
    },
    analyticsUnattributed: {
      perAddressPerMinute: int(env, 'ANALYTICS_UNATTRIBUTED_PER_ADDRESS', 1000, 1, 10_000_000),
      perOriginPerMinute: int(env, 'ANALYTICS_UNATTRIBUTED_PER_ORIGIN', 10_000, 1, 100_000_000),
      cap: int(env, 'ANALYTICS_UNATTRIBUTED_CAP', 1_000_000, 0, 1_000_000_000),
    },
    rateLimit: {
      rps: int(env, 'RATE_LIMIT_RPS', 100, 1, 1_000_000),
      burst: int(env, 'RATE_LIMIT_BURST', 200, 0, 10_000_000),
      redisUrl: env.REDIS_URL || undefined,
    },
    versions: {
      alpsDeprecatedAt: dateVar(env, 'ALPS_DEPRECATED_AT', '2026-04-01T00:00:00Z')!,
      alpsSunsetAt: dateVar(env, 'ALPS_SUNSET_AT'),
      alpsMigrationUrl: env.ALPS_MIGRATION_URL || '/versions',
    },
    secrets: {
      indexerApiKey: env.INDEXER_API_KEY || undefined,
      complianceSessionKey: sessionKey(env, 'COMPLIANCE_SESSION_KEY'),
      orchestratorPrivateKey: privateKey(env, 'ORCHESTRATOR_PRIVATE_KEY'),
      allocatorPrivateKey: privateKey(env, 'ALLOCATOR_PRIVATE_KEY'),
    },
  });
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
  };
}
