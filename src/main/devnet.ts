import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { bytesToHex, createPublicClient, createTestClient, createWalletClient, http, type Abi, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import artifacts from '../../contracts/artifacts.json';
import { loadChainRegistry } from '../chains/registry';
import { projectRoot, stopProcess, waitFor } from '../dev/processes';
import { exitOnError } from '../runtime';

/** Two testnets of the registry, so their tokens and routes are the service's own. */
const CHAINS = [
  { chainId: 84532, port: 8545 },
  { chainId: 421614, port: 8546 },
];
// anvil's dev accounts: the well-known test mnemonic, funded with 10,000 ETH on every anvil chain.
const MNEMONIC = 'test test test test test test test test test test test junk';
const ACCOUNTS = 5;

const children: ChildProcess[] = [];
let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const proc of children.slice().reverse()) await stopProcess(proc);
  process.exit(code);
}

/**
 * `npm run devnet`: two anvil chains (Base Sepolia's and Arbitrum Sepolia's chain ids) with our contracts deployed
 * (contracts/: The Compact's events, the filler, a test USDC at the registry's USDC address), funded accounts
 * printed with their keys, and `npm start` with the chain indexer following both. The Compact itself is not deployed:
 * its sources are not in this repository (docs/chain-indexer.md, Our contracts).
 */
async function main() {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  const registry = loadChainRegistry();
  const anvil = path.join(path.dirname(require.resolve('@foundry-rs/anvil/package.json')), 'bin.mjs');
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
  const env: Record<string, string> = {
    INDEXER_CHAINS: CHAINS.map((c) => c.chainId).join(','),
    INDEXER_POLL_MS: '1000',
  };
  const lines: string[] = [];
  for (const { chainId, port } of CHAINS) {
    const proc = spawn(
      process.execPath,
      [anvil, '--port', String(port), '--chain-id', String(chainId), '--block-time', '2', '--silent'],
      { stdio: 'inherit' },
    );
    children.push(proc);
    proc.on('exit', () => !stopping && void shutdown(1));
    const url = `http://127.0.0.1:${port}`;
    const transport = http(url);
    const client = createPublicClient({ transport });
    await waitFor(`anvil on ${url}`, async () => (await client.getChainId()) === chainId, 30_000);
    const wallet = createWalletClient({ account: accounts[0], transport });
    const deploy = async (name: keyof typeof artifacts, args: unknown[] = []): Promise<Hex> => {
      const hash = await wallet.deployContract({
        chain: null,
        abi: artifacts[name].abi as Abi,
        bytecode: artifacts[name].bytecode as Hex,
        args,
      });
      return (await client.waitForTransactionReceipt({ hash })).contractAddress!;
    };
    const compact = await deploy('CompactEvents');
    const filler = await deploy('Filler');
    // Our token's code at the registry's USDC address, so its balances are ones the service lists.
    const usdc = registry.chain(chainId)!.tokens.find((t) => t.symbol === 'USDC')!.address as Hex;
    const template = await deploy('TestToken', ['USD Coin (devnet)', 'USDC', 6]);
    await createTestClient({ mode: 'anvil', transport }).setCode({
      address: usdc,
      bytecode: (await client.getCode({ address: template }))!,
    });
    for (const a of accounts) {
      const hash = await wallet.writeContract({
        chain: null,
        address: usdc,
        abi: artifacts.TestToken.abi as Abi,
        functionName: 'mint',
        args: [a.address, 1_000_000_000n],
      });
      await client.waitForTransactionReceipt({ hash });
    }
    Object.assign(env, {
      [`RPC_URL_${chainId}`]: url,
      [`INDEXER_COMPACT_${chainId}`]: compact,
      [`INDEXER_FILL_CONTRACT_${chainId}`]: filler,
      [`INDEXER_CONFIRMATIONS_${chainId}`]: '1',
      [`INDEXER_SETTLEMENT_CONFIRMATIONS_${chainId}`]: '1',
    });
    lines.push(
      `  ${registry.chain(chainId)!.name} (${chainId})  ${url}`,
      `    CompactEvents ${compact}  (The Compact's events: deposit, withdraw, claim, setForcedWithdrawal)`,
      `    Filler        ${filler}  (fill(nonce, token, recipient, amount))`,
      `    USDC          ${usdc}  (our test token; 1,000 USDC minted to each account below)`,
    );
  }
  console.log(
    [
      '',
      'Devnet chains (a block every 2 s; the indexer reports at 1 confirmation):',
      ...lines,
      '  Accounts (10,000 ETH each on both chains):',
      ...accounts.map(
        (a, i) => `    ${a.address}  ${bytesToHex(a.getHdKey().privateKey!)}${i === 0 ? '  (deployer)' : ''}`,
      ),
      '  The Compact itself is not deployed here: its sources are not in this repository.',
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
