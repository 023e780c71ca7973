/** An anvil chain for the chain indexer's benches, with our CompactEvents deployed by anvil's first dev account. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createPublicClient, createWalletClient, http, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import artifacts from '../solidity/artifacts.json';
import { stopProcess, waitFor } from '../src/dev/processes';

const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const COMPACT_ABI = artifacts.CompactEvents.abi as Abi;

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
  const deployed = await wallet.deployContract({
    chain: null,
    abi: COMPACT_ABI,
    bytecode: artifacts.CompactEvents.bytecode as Hex,
  });
  const compact = (await client.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
  return { url, client, wallet, compact, stop: () => stopProcess(anvil) };
}
