import fs from 'node:fs';
import path from 'node:path';
import { createTestClient, createWalletClient, http, parseUnits, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpcClient } from '../chains/rpc';
import artifacts from '../../solidity/artifacts.json';
import { loadConfig } from '../config';
import { ConfigError } from '../env';

/** One chain of `npm run devnet`: its RPC and our contracts on it (solidity/). */
export interface DevnetChain {
  chainId: number;
  rpcUrl: string;
  /** DevnetCompact, at the service's COMPACT_ADDRESS */
  compact: Hex;
  filler: Hex;
  usdc: Hex;
  /** our Permit2, at Permit2's canonical address */
  permit2: Hex;
  /** our IntentArbiter, the intents' arbiter on this chain (INTENT_ARBITER_<chainId>) */
  arbiter: Hex;
}

/** What `npm run devnet` started, written to <DATA_DIR>/devnet.json for the devnet's helper scripts. */
export interface Devnet {
  api: string;
  webhookReceiver: string;
  chains: DevnetChain[];
  accounts: { address: Hex; privateKey: Hex }[];
}

export const devnetFile = () => path.join(loadConfig().dataDir, 'devnet.json');

export function readDevnet(): Devnet {
  const file = devnetFile();
  if (!fs.existsSync(file)) throw new ConfigError(`${file} not found: start the devnet first (npm run devnet)`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Devnet;
}

export function devnetChain(devnet: Devnet, chainId: number): DevnetChain {
  const chain = devnet.chains.find((c) => c.chainId === chainId);
  if (!chain) throw new ConfigError(`chain ${chainId} is not on the devnet (${devnet.chains.map((c) => c.chainId)})`);
  return chain;
}

/** A call of one of our contracts from `privateKey`, mined, its receipt checked: the transaction hash. */
export async function sendContract(
  chain: DevnetChain,
  privateKey: Hex,
  to: Hex,
  name: keyof typeof artifacts,
  functionName: string,
  args: unknown[],
): Promise<Hex> {
  const transport = http(chain.rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), transport });
  const hash = await wallet.writeContract({
    chain: null,
    address: to,
    abi: artifacts[name].abi as Abi,
    functionName,
    args,
  });
  const receipt = await rpcClient(chain.rpcUrl, { pollingInterval: 250 }).waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${name}.${functionName} reverted (${hash})`);
  return hash;
}

/** One of our contracts deployed from `privateKey`, mined, its receipt checked: its address. */
export async function deployContract(
  chain: DevnetChain,
  privateKey: Hex,
  name: keyof typeof artifacts,
  args: unknown[] = [],
): Promise<Hex> {
  const transport = http(chain.rpcUrl);
  const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), transport });
  const hash = await wallet.deployContract({
    chain: null,
    abi: artifacts[name].abi as Abi,
    bytecode: artifacts[name].bytecode as Hex,
    args,
  });
  const receipt = await rpcClient(chain.rpcUrl, { pollingInterval: 250 }).waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`${name} not deployed (${hash})`);
  return receipt.contractAddress;
}

/** Sets an address's ETH balance (anvil_setBalance), e.g. to pay for a fresh key's transactions. */
export async function setBalance(chain: DevnetChain, address: Hex, wei: bigint): Promise<void> {
  await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).setBalance({ address, value: wei });
}

/** A call of the devnet's API with a project's key: the JSON answer, or an error naming the status and body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function callApi(devnet: Devnet, apiKey: string, route: string): Promise<any> {
  const res = await fetch(`${devnet.api}${route}`, { headers: { 'x-api-key': apiKey } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${route}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** An amount of USDC in whole units (`5`, `2.5`) as its 6-decimal integer. */
export function usdcUnits(amount: string): bigint {
  if (!/^\d+(\.\d{1,6})?$/.test(amount)) throw new ConfigError(`not an amount of USDC: ${amount}`);
  return parseUnits(amount, 6);
}
