import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import solc from 'solc';
import {
  concat,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  getContractAddress,
  http,
  keccak256,
  toHex,
  type Hex,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { onFreePorts } from './global-setup';

/**
 * A local EVM dev chain per test file (anvil, shipped as a binary inside its npm package), with the minimal ERC-1271
 * account of solidity/MinimalAccount.sol compiled by solc (npm) and its CREATE2 factory deployed.
 */
export interface LocalChain {
  url: string;
  factory: Hex;
  stop(): Promise<void>;
}

// anvil's first default dev account: funded on every fresh anvil chain.
const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

function compile(): { account: Hex; factory: Hex } {
  const source = fs.readFileSync(path.join(__dirname, 'solidity', 'MinimalAccount.sol'), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'MinimalAccount.sol': { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const contracts = output.contracts['MinimalAccount.sol'];
  return {
    account: `0x${contracts.MinimalAccount.evm.bytecode.object}`,
    factory: `0x${contracts.AccountFactory.evm.bytecode.object}`,
  };
}

let bytecode: { account: Hex; factory: Hex } | undefined;

/**
 * A local anvil chain with the account factory deployed; it serves as `RPC_URL_<id>` for `serves` until stopped. `chainId`:
 * the id its contracts see (`block.chainid`), for signatures whose EIP-712 domain names the chain served.
 */
export async function startChain(serves: number[] = [], chainId?: number): Promise<LocalChain> {
  bytecode ??= compile();
  const bin = path.join(path.dirname(require.resolve('@foundry-rs/anvil/package.json')), 'bin.mjs');
  // A port found free may be taken before anvil binds it: then anvil exits, and it starts again on another port.
  const { proc, url, client } = await onFreePorts(async (port) => {
    const args = [
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--silent',
      ...(chainId ? ['--chain-id', String(chainId)] : []),
    ];
    const proc: ChildProcess = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' });
    const url = `http://127.0.0.1:${port}`;
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
    for (let i = 0; ; i++) {
      // Whatever answers on the port, it is not ours once ours has exited.
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`anvil exited on port ${port}`);
      if (
        await client.getChainId().then(
          () => true,
          () => false,
        )
      )
        break;
      if (i > 100) {
        proc.kill('SIGKILL');
        throw new Error('anvil did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`anvil exited on port ${port}`);
    return { proc, url, client };
  });
  const wallet = createWalletClient({ account: DEPLOYER, transport: http(url) });
  const chain = {
    id: await client.getChainId(),
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  };
  const hash = await wallet.sendTransaction({ chain, data: bytecode.factory });
  const { contractAddress } = await client.waitForTransactionReceipt({ hash });
  for (const id of serves) process.env[`RPC_URL_${id}`] = url;
  return {
    url,
    factory: contractAddress!,
    async stop() {
      for (const id of serves) delete process.env[`RPC_URL_${id}`];
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
    },
  };
}

const FACTORY_ABI = [
  {
    type: 'function',
    name: 'deploy',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'salt', type: 'bytes32' },
    ],
    outputs: [{ type: 'address' }],
  },
] as const;

/** A smart account owned by `owner`: its counterfactual address and the factory call that deploys it. */
export interface SmartAccount {
  address: Hex;
  owner: PrivateKeyAccount;
  factory: Hex;
  factoryData: Hex;
  initCode: Hex;
}

export function smartAccount(chain: LocalChain, owner: PrivateKeyAccount, salt = 0n): SmartAccount {
  const saltHex = toHex(salt, { size: 32 });
  const init = concat([bytecode!.account, `0x${owner.address.slice(2).toLowerCase().padStart(64, '0')}`]);
  const address = getContractAddress({
    opcode: 'CREATE2',
    from: chain.factory,
    salt: saltHex,
    bytecodeHash: keccak256(init),
  });
  const factoryData = encodeFunctionData({ abi: FACTORY_ABI, functionName: 'deploy', args: [owner.address, saltHex] });
  return { address, owner, factory: chain.factory, factoryData, initCode: concat([chain.factory, factoryData]) };
}

/** Deploys the account through its factory (a transaction from anvil's dev account). */
export async function deploy(chain: LocalChain, account: SmartAccount): Promise<void> {
  const client = createPublicClient({ transport: http(chain.url) });
  const wallet = createWalletClient({ account: DEPLOYER, transport: http(chain.url) });
  const hash = await wallet.sendTransaction({ chain: null, to: account.factory, data: account.factoryData });
  await client.waitForTransactionReceipt({ hash });
  if (!(await client.getCode({ address: account.address }))) throw new Error('account not deployed');
}

/** The 0.5.x client's owner-validator address (modules/validators/core.js), which prefixes its signatures. */
export const OWNABLE_VALIDATOR = '0x2483DA3A338895199E5e538530213157e931Bf06';
