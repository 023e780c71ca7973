import { loadConfig } from '../config';
import { readDevnet } from '../dev/devnet-tools';
import { createLogger } from '../logger';
import { relayerBotConfig } from '../relayer-bot/config';
import { runRelayer } from '../relayer-bot/start';
import { exitOnError } from '../runtime';
import { installRuntime } from '../worker/workers';

/**
 * With `--devnet`, the settings `npm run devnet` wrote to <DATA_DIR>/devnet.json: its API, its chains, their Filler
 * and USDC, and account 0's key (the devnet's relayer); RELAYER_KEY still comes from the environment.
 */
function devnetSettings(): Record<string, string> {
  const devnet = readDevnet();
  return {
    RELAYER_API_URL: devnet.api,
    RELAYER_PRIVATE_KEY: devnet.accounts[0].privateKey,
    ...Object.fromEntries(
      devnet.chains.flatMap((c) => [
        [`RPC_URL_${c.chainId}`, c.rpcUrl],
        [`RELAYER_FILLER_${c.chainId}`, c.filler],
        [`RELAYER_TOKENS_${c.chainId}`, c.usdc],
      ]),
    ),
  };
}

/** `npm run relayer [-- --devnet]`: fills and claims the order feed's intents (docs/relayers.md). */
async function main(argv: string[]) {
  const env = argv.includes('--devnet') ? { ...process.env, ...devnetSettings() } : process.env;
  const service = loadConfig(env);
  const log = createLogger(service.logLevel, 'relayer');
  installRuntime(service.logLevel === 'info' ? 'warn' : service.logLevel);
  const abort = new AbortController();
  process.on('SIGINT', () => abort.abort());
  process.on('SIGTERM', () => abort.abort());
  await runRelayer(
    {
      config: relayerBotConfig(env),
      temporalAddress: service.temporalAddress ?? `127.0.0.1:${service.temporalPort}`,
      namespace: service.temporalNamespace,
      chainRegistryFile: service.chainRegistryFile,
      log,
    },
    abort.signal,
  );
}

main(process.argv.slice(2)).catch(exitOnError);
