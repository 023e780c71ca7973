import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { bytesToHex, createTestClient, createWalletClient, http as rpc, type Abi, type Hex } from 'viem';
import { mnemonicToAccount, privateKeyToAccount, type HDAccount } from 'viem/accounts';
import { rpcClient } from '../chains/rpc';
import artifacts from '../../solidity/artifacts.json';
import { allocatorId } from '../chains/lock-tag';
import { loadChainRegistry } from '../chains/registry';
import { compactAddress } from '../compact/config';
import { ConfigError, loadConfig } from '../config';
import { devnetContract, placeContract, type DevnetContract, type DevnetRole } from '../dev/contract-artifact';
import { devnetFile, type Devnet, type DevnetChain } from '../dev/devnet-tools';
import { projectRoot, stopProcess, waitFor } from '../dev/processes';
import { PERMIT2_ADDRESS } from '../intents/typed-data';
import { exitOnError, loadRuntime } from '../runtime';

/** Two testnets of the registry, so their tokens and routes are the service's own. */
const CHAIN_IDS = [84532, 421614];
// anvil's dev accounts: the well-known test mnemonic, funded with 10,000 ETH on every anvil chain.
const MNEMONIC = 'test test test test test test test test test test test junk';
const ACCOUNTS = 5;

const children: ChildProcess[] = [];
let receiver: http.Server | undefined;
let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  receiver?.close();
  for (const proc of children.slice().reverse()) await stopProcess(proc);
  process.exit(code);
}

/** `--port-base <n>` (anvil on n and n + 1, the webhook receiver on n + 2) and `--block-time <seconds>`. */
function options(argv: string[]): { portBase: number; blockTime: number } {
  const value = (flag: string, fallback: number) => {
    const i = argv.indexOf(flag);
    const n = i < 0 ? fallback : Number(argv[i + 1]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} takes a positive integer`);
    return n;
  };
  return { portBase: value('--port-base', 8545), blockTime: value('--block-time', 2) };
}

/**
 * The walk-through's webhook endpoint: prints each delivery's type and data. It does not check signatures (it is
 * given no secret); a real receiver does, with the `standardwebhooks` package (docs/webhooks.md).
 */
function startReceiver(port: number): Promise<string> {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      try {
        const { type, data } = JSON.parse(body);
        console.log(`[webhook] ${type} ${JSON.stringify(data)}`);
      } catch {
        console.log(`[webhook] ${body}`);
      }
      res.writeHead(204).end();
    });
  });
  receiver.listen(port, '127.0.0.1');
  return new Promise((resolve, reject) => {
    receiver!.once('listening', () => resolve(`http://127.0.0.1:${port}/hooks`));
    receiver!.once('error', reject);
  });
}

/**
 * Where the devnet's compact and allocator go, the service's COMPACT_ADDRESS and its allocator key's address, and the
 * key the arbiter takes attestations from (the service's FILL_ATTESTER_PRIVATE_KEY).
 */
interface Addresses {
  compact: Hex;
  allocator: Hex;
  attester: Hex;
}

/** Our arbiter's place on both chains (its immutables travel with its code), so intents name one arbiter. */
const ARBITER = '0x00000000000000000000000000000000a4b17e40';

/** The compact and Permit2 the devnet places: ours, or the ones DEVNET_*_ARTIFACT name (docs/chain-indexer.md). */
type Contracts = Record<DevnetRole, DevnetContract>;

/**
 * An anvil chain with our contracts deployed, the compact (DevnetCompact, or the swapped-in one) at the service's
 * compact address with a SignerAllocator of the service's allocator key registered at that key's address, Permit2
 * (ours, or the swapped-in one) at Permit2's address, our token's code at the registry's USDC and USDC for every
 * account.
 */
async function startChain(
  chainId: number,
  port: number,
  blockTime: number,
  accounts: HDAccount[],
  at: Addresses,
  contracts: Contracts,
): Promise<DevnetChain> {
  const anvil = path.join(path.dirname(require.resolve('@foundry-rs/anvil/package.json')), 'bin.mjs');
  const proc = spawn(
    process.execPath,
    [anvil, '--port', String(port), '--chain-id', String(chainId), '--block-time', String(blockTime), '--silent'],
    { stdio: 'inherit' },
  );
  children.push(proc);
  proc.on('exit', () => !stopping && void shutdown(1));
  const url = `http://127.0.0.1:${port}`;
  const transport = rpc(url);
  const client = rpcClient(url, { pollingInterval: 250 });
  await waitFor(`anvil on ${url}`, async () => (await client.getChainId()) === chainId, 30_000);
  const test = createTestClient({ mode: 'anvil', transport });
  const wallet = createWalletClient({ account: accounts[0], transport });
  // Each setup transaction is mined at once rather than at the next block.
  const mined = async (hash: Hex) => {
    await test.mine({ blocks: 1 });
    return client.waitForTransactionReceipt({ hash });
  };
  const deploy = async (name: keyof typeof artifacts, args: unknown[] = []): Promise<Hex> => {
    const hash = await wallet.deployContract({
      chain: null,
      abi: artifacts[name].abi as Abi,
      bytecode: artifacts[name].bytecode as Hex,
      args,
    });
    return (await mined(hash)).contractAddress!;
  };
  const copy = async (address: Hex, name: keyof typeof artifacts, args: unknown[] = []) => {
    const deployed = await deploy(name, args);
    await test.setCode({ address, bytecode: (await client.getCode({ address: deployed }))! });
  };
  // Permit2 first, as on a real chain: The Compact's constructor records whether Permit2 has code.
  const permit2 = PERMIT2_ADDRESS as Hex;
  await placeContract({ public: client, test, wallet }, permit2, contracts.permit2);
  // The client and the service sign in the domain of the compact at COMPACT_ADDRESS: the compact is placed there.
  const compact = at.compact;
  await placeContract({ public: client, test, wallet }, compact, contracts.compact);
  // The lock tag names the allocator by the low bits of its key's address: the allocator contract sits at that
  // address, checking the key's signatures (signer and compact are immutables, so they travel with the code).
  await copy(at.allocator, 'SignerAllocator', [at.allocator, compact]);
  await mined(
    await wallet.writeContract({
      chain: null,
      address: compact,
      abi: artifacts.DevnetCompact.abi as Abi,
      functionName: '__registerAllocator',
      args: [at.allocator, '0x'],
    }),
  );
  const filler = await deploy('Filler');
  // The arbiter the service names in its intents: it claims for a relayer once shown the service's fill attestation.
  const arbiter = ARBITER as Hex;
  await copy(arbiter, 'IntentArbiter', [compact, permit2, at.attester]);
  // Our token's code at the registry's USDC address, so its balances are ones the service lists.
  const usdc = loadChainRegistry()
    .chain(chainId)!
    .tokens.find((t) => t.symbol === 'USDC')!.address as Hex;
  await copy(usdc, 'TestToken', ['USD Coin (devnet)', 'USDC', 6]);
  for (const a of accounts) {
    const hash = await wallet.writeContract({
      chain: null,
      address: usdc,
      abi: artifacts.TestToken.abi as Abi,
      functionName: 'mint',
      args: [a.address, 1_000_000_000n],
    });
    await mined(hash);
  }
  return { chainId, rpcUrl: url, compact, filler, usdc, permit2, arbiter };
}

/**
 * `npm run devnet`: two anvil chains (Base Sepolia's and Arbitrum Sepolia's chain ids) with our contracts deployed
 * (solidity/: DevnetCompact at COMPACT_ADDRESS with a SignerAllocator of the service's allocator key registered, the
 * filler, our Permit2 at Permit2's address, our IntentArbiter taking the service's fill attestations, a test USDC at the registry's USDC address), funded accounts printed with
 * their keys, a webhook receiver that prints deliveries, `<DATA_DIR>/devnet.json` for the `devnet:*` scripts, and
 * `npm start` with the chain indexer following both. The Compact itself is not in this repository: DevnetCompact
 * enforces what it does for the claims the devnet makes, and DEVNET_COMPACT_ARTIFACT / DEVNET_PERMIT2_ARTIFACT swap
 * the real contracts in from files of their builds (docs/chain-indexer.md, Our contracts).
 */
async function main() {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  const { portBase, blockTime } = options(process.argv.slice(2));
  const registry = loadChainRegistry();
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
  const env: Record<string, string> = {
    INDEXER_CHAINS: CHAIN_IDS.join(','),
    INDEXER_POLL_MS: process.env.INDEXER_POLL_MS ?? '1000',
  };
  // The service's own keys (generated into DATA_DIR once, as `npm start` below reads them).
  const rt = loadRuntime();
  if ((BigInt(rt.defaultLockTag) & ((1n << 92n) - 1n)) !== allocatorId(rt.allocatorAddress))
    throw new ConfigError(
      `ALLOCATOR_LOCK_TAG names another allocator than ALLOCATOR_PRIVATE_KEY (${rt.allocatorAddress})`,
    );
  const at = {
    compact: compactAddress(process.env) as Hex,
    allocator: rt.allocatorAddress,
    attester: privateKeyToAccount(rt.secrets.fillAttesterPrivateKey!).address,
  };
  const contracts = {
    compact: devnetContract(process.env, 'compact'),
    permit2: devnetContract(process.env, 'permit2'),
  };
  const chains = await Promise.all(
    CHAIN_IDS.map((chainId, i) => startChain(chainId, portBase + i, blockTime, accounts, at, contracts)),
  );
  for (const { chainId, rpcUrl, compact, filler, arbiter } of chains)
    Object.assign(env, {
      [`RPC_URL_${chainId}`]: rpcUrl,
      [`INTENT_ARBITER_${chainId}`]: arbiter,
      [`INDEXER_COMPACT_${chainId}`]: compact,
      [`INDEXER_FILL_CONTRACT_${chainId}`]: filler,
      [`INDEXER_CONFIRMATIONS_${chainId}`]: '1',
      [`INDEXER_SETTLEMENT_CONFIRMATIONS_${chainId}`]: '1',
    });
  const lines = chains.flatMap(({ chainId, rpcUrl, compact, filler, usdc, permit2, arbiter }) => [
    `  ${registry.chain(chainId)!.name} (${chainId})  ${rpcUrl}`,
    `    Compact       ${compact}  (${contracts.compact.source}, at COMPACT_ADDRESS; allocator ${at.allocator})`,
    `    Filler        ${filler}  (fill(nonce, token, recipient, amount), fillTokenOut(nonce, recipient, tokenOut))`,
    `    Permit2       ${permit2}  (${contracts.permit2.source}, at Permit2's address)`,
    `    IntentArbiter ${arbiter}  (the intents' arbiter: claims for a relayer with the service's fill attestation)`,
    `    USDC          ${usdc}  (our test token; 1,000 USDC minted to each account below)`,
  ]);
  const webhookReceiver = await startReceiver(portBase + 2);
  const keys = accounts.map((a) => ({ address: a.address, privateKey: bytesToHex(a.getHdKey().privateKey!) }));
  const devnet: Devnet = {
    api: `http://127.0.0.1:${loadConfig().port}`,
    webhookReceiver,
    chains,
    accounts: keys,
  };
  fs.mkdirSync(path.dirname(devnetFile()), { recursive: true });
  fs.writeFileSync(devnetFile(), `${JSON.stringify(devnet, null, 2)}\n`);
  const roles = [
    'deployer and relayer (npm run relayer -- --devnet)',
    'user (npm run devnet:deposit, devnet:intent, devnet:transfer)',
  ];
  console.log(
    [
      '',
      `Devnet chains (a block every ${blockTime} s; the indexer reports at 1 confirmation):`,
      ...lines,
      '  Accounts (10,000 ETH each on both chains):',
      ...keys.map((a, i) => `    ${a.address}  ${a.privateKey}${roles[i] ? `  (${roles[i]})` : ''}`),
      `  Webhook receiver: ${webhookReceiver}  (prints each delivery here as [webhook] <type> <data>)`,
      `  Written to ${devnetFile()} for the devnet:* scripts.`,
      '',
      ...Object.entries(env).map(([k, v]) => `  ${k}=${v}`),
      '',
    ].join('\n'),
  );
  const start = spawn(process.execPath, ['--import', 'tsx', 'src/main/dev.ts'], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: 'inherit',
  });
  children.push(start);
  start.on('exit', (code) => !stopping && void shutdown(code ?? 1));
}

main().catch(async (err) => {
  console.error(err);
  await shutdown(1);
  exitOnError(err);
});
