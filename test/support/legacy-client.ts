import path from 'node:path';
import { encodePacked, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { OWNABLE_VALIDATOR, startChain, type LocalChain } from './chain';
import { startApi, startWorker, type Api } from './harness';

/** The published 0.5.4 client, unchanged (installed as rhinestone-sdk-v0; jest transpiles its ESM). */
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
export const v0: any = require(
  path.resolve(__dirname, '../../node_modules/rhinestone-sdk-v0/dist/src/orchestrator/index.js'),
);
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

/**
 * A suite of the legacy host: its API, the local chain that checks the bundles' smart-account signatures (both chains
 * of these bundles, Base and Arbitrum, are served by it) and the 0.5.x client pointed at `/legacy`.
 */
export async function startLegacyHost(
  opts: Parameters<typeof startApi>[0] = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ api: Api; chain: LocalChain; client: any }> {
  const api = await startApi(opts);
  if (opts.ownDatabase) await startWorker(api.env);
  const chain = await startChain([8453, 42161]);
  return { api, chain, client: v0.getOrchestrator(api.apiKey, `${api.url}/legacy`) };
}

export async function stopLegacyHost(host: { api: Api; chain: LocalChain }): Promise<void> {
  await host.chain.stop();
  await host.api.close();
}

/**
 * Signs the first order path as the client's intent flow does (execution/index.js sendTransactionAsIntent): the
 * first segment's execs become the injected executions followed by the target executions, the owner signs the
 * client's bundle hash as a raw message, and the owner-validator address prefixes the signature everywhere.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function signAsClient(orderPath: any, targetExecutions: unknown[], owner: PrivateKeyAccount) {
  const bundle = orderPath[0].orderBundle;
  bundle.segments[0].witness.execs = [...orderPath[0].injectedExecutions, ...targetExecutions];
  return signBundle(bundle, owner);
}

/** The signing step alone (the session path changes `userOpHash` instead of `execs` before it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function signBundle(bundle: any, owner: PrivateKeyAccount) {
  const hash: Hex = v0.getOrderBundleHash(bundle);
  const packed = encodePacked(
    ['address', 'bytes'],
    [OWNABLE_VALIDATOR, await owner.signMessage({ message: { raw: hash } })],
  );
  return { ...bundle, originSignatures: Array(bundle.segments.length).fill(packed), targetSignature: packed };
}
