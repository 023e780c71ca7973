/**
 * An anvil chain for the chain indexer's benches, set up by anvil's first dev account: our DevnetCompact, our token's
 * code at Base's USDC (the lock's token, one the registry lists), and our DepositBatcher holding plenty of it.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createPublicClient, createTestClient, createWalletClient, http, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import artifacts from '../solidity/artifacts.json';
import { stopProcess, waitFor } from '../src/dev/processes';

const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const COMPACT_ABI = artifacts.DevnetCompact.abi as Abi;
export const BATCHER_ABI = artifacts.DepositBatcher.abi as Abi;
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

export async function startAnvil(port: number, chainId: number) {
  const bin = path.join(path.dirname(require.resolve('@foundry-rs/anvil/package.json')), 'bin.mjs');
  const anvil = spawn(
    process.execPath,
    [bin, '--port', String(port), '--chain-id', String(chainId), '--gas-limit', '1000000000', '--silent'],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const client = createPublicClient({ transport: http(url), cacheTime: 0 });
  try {
    await waitFor('anvil', async () => (await client.getChainId()) === chainId, 30_000);
  } catch (err) {
    await stopProcess(anvil);
    throw err;
  }
  const wallet = createWalletClient({ account: DEPLOYER, transport: http(url) });
  const test = createTestClient({ mode: 'anvil', transport: http(url) });
  const deploy = async (
    name: 'DevnetCompact' | 'DepositBatcher' | 'SignerAllocator' | 'TestToken',
    args: unknown[],
  ) => {
    const { abi, bytecode } = artifacts[name];
    const hash = await wallet.deployContract({ chain: null, abi: abi as Abi, bytecode: bytecode as Hex, args });
    return (await client.waitForTransactionReceipt({ hash })).contractAddress!;
  };
  const copy = async (address: Hex, name: 'SignerAllocator' | 'TestToken', args: unknown[]) => {
    const deployed = await deploy(name, args);
    await test.setCode({ address, bytecode: (await client.getCode({ address: deployed }))! });
  };
  const call = async (address: Hex, abi: Abi, functionName: string, args: unknown[]) => {
    const hash = await wallet.writeContract({ chain: null, address, abi, functionName, args });
    await client.waitForTransactionReceipt({ hash });
  };
  const compact = await deploy('DevnetCompact', []);
  await copy(BASE_USDC, 'TestToken', ['Test USD', 'TUSD', 6]);
  const batcher = await deploy('DepositBatcher', []);
  await call(BASE_USDC, artifacts.TestToken.abi as Abi, 'mint', [batcher, 2n ** 200n]);
  return {
    url,
    client,
    wallet,
    compact,
    batcher,
    /**
     * A SignerAllocator of `allocator` at that address, registered: deposits into the locks whose tag names it (the
     * service's allocator key's address) are taken. Its immutables travel with its code.
     */
    async registerAllocator(allocator: Hex) {
      await copy(allocator, 'SignerAllocator', [allocator, compact]);
      await call(compact, COMPACT_ABI, '__registerAllocator', [allocator, '0x']);
    },
    stop: () => stopProcess(anvil),
  };
}
