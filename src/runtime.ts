import { privateKeyToAccount } from 'viem/accounts';
import { loadChainRegistry } from './chains/registry';
import { chainRpc, type ChainRpc } from './chains/rpc';
import { lockTagFor } from './chains/lock-tag';
import { Config, ConfigError, loadConfig, Secrets } from './config';
import { resolveSecrets } from './secrets';

/** Settings every process derives the same way from its environment. */
export interface Runtime {
  config: Config;
  secrets: Secrets;
  generatedSecrets: string[];
  databaseUrl: string;
  temporalAddress: string;
  allocatorAddress: `0x${string}`;
  orchestratorAddress: `0x${string}`;
  defaultLockTag: `0x${string}`;
  registry: ReturnType<typeof loadChainRegistry>;
  /** the chains this process reads (RPC_URL_<chainId>), one client each */
  rpc: ChainRpc;
}

export function loadRuntime(env: NodeJS.ProcessEnv = process.env): Runtime {
  const config = loadConfig(env);
  const { secrets, generated } = resolveSecrets(config);
  if (!config.databaseUrl && config.env === 'production')
    throw new ConfigError('DATABASE_URL is required (NODE_ENV=production)');
  const allocatorAddress = privateKeyToAccount(secrets.allocatorPrivateKey).address;
  return {
    config,
    secrets,
    generatedSecrets: generated,
    databaseUrl: config.databaseUrl ?? embeddedDatabaseUrl(config),
    temporalAddress: config.temporalAddress ?? `127.0.0.1:${config.temporalPort}`,
    allocatorAddress,
    orchestratorAddress: privateKeyToAccount(secrets.orchestratorPrivateKey).address,
    defaultLockTag:
      (config.allocator.lockTag as `0x${string}` | undefined) ??
      lockTagFor(allocatorAddress, config.allocator.scope, config.allocator.resetPeriod),
    registry: loadChainRegistry(config.chainRegistryFile),
    rpc: chainRpc(env),
  };
}

/** Where `npm start` runs its embedded PostgreSQL when DATABASE_URL is not set. */
export const EMBEDDED_DATABASE = 'orchestrator';
function embeddedDatabaseUrl(config: Config): string {
  return `postgres://postgres:postgres@127.0.0.1:${config.embeddedPgPort}/${EMBEDDED_DATABASE}`;
}

/** Entry points share one failure path: a clear message and a non-zero exit. */
export function exitOnError(err: unknown): never {
  console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
  process.exit(1);
}
