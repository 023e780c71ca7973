import { createPublicClient, http, type PublicClient } from 'viem';

/** RPC_URL_<chainId>: the JSON-RPC endpoint of a chain this deployment reads, if it reads that chain. */
export const rpcUrlOf = (env: NodeJS.ProcessEnv, chainId: number): string | undefined =>
  env[`RPC_URL_${chainId}`] || undefined;

/**
 * A viem client of one endpoint, as every reader of a chain here uses it: concurrent calls batched into one request;
 * no retries in viem (a caller that retries does so itself, as Temporal's retry re-reads an indexer range); no cache
 * (each read sees the chain as it is now).
 */
export const rpcClient = (url: string, options: { pollingInterval?: number } = {}): PublicClient =>
  createPublicClient({ transport: http(url, { batch: true, retryCount: 0 }), cacheTime: 0, ...options });

/**
 * The chains a process reads, each through one client (made on first use) that signature verification, gas prices
 * and the chain indexer share; undefined for a chain without RPC_URL_<chainId>. Kept per endpoint: a chain whose
 * RPC_URL_<chainId> is changed in `env` (tests move a chain to a closed port) is read through its new endpoint.
 */
export interface ChainRpc {
  client(chainId: number): PublicClient | undefined;
}

export function chainRpc(env: NodeJS.ProcessEnv): ChainRpc {
  const clients = new Map<string, PublicClient>();
  return {
    client(chainId) {
      const url = rpcUrlOf(env, chainId);
      if (!url) return undefined;
      let client = clients.get(url);
      if (!client) clients.set(url, (client = rpcClient(url)));
      return client;
    },
  };
}
