import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  maxUint256,
  type Abi,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import artifacts from '../../solidity/artifacts.json';
import { startChain, type LocalChain } from './chain';

type Name = keyof typeof artifacts;
// Who sends the tests' transactions (funded on each chain); not the orchestrator's key, anvil's first account.
const SENDER = privateKeyToAccount(generatePrivateKey());

/** An anvil chain serving `chainId` (RPC_URL_<chainId>) with our contracts deployed on it, and clients to drive it. */
export interface IndexedChain {
  chainId: number;
  local: LocalChain;
  public: PublicClient;
  wallet: WalletClient;
  test: TestClient;
  sender: PrivateKeyAccount;
  /** a contract call from `from` (default: the sender), mined, and its receipt checked */
  send(to: Hex, name: Name, functionName: string, args: unknown[], from?: Hex): Promise<Hex>;
}

export async function startIndexedChain(chainId: number): Promise<IndexedChain> {
  const local = await startChain([chainId], chainId);
  const transport = http(local.url);
  const pub = createPublicClient({ transport, cacheTime: 0 });
  const wallet = createWalletClient({ account: SENDER, transport });
  const test = createTestClient({ mode: 'anvil', transport });
  await test.setBalance({ address: SENDER.address, value: 10n ** 21n });
  return {
    chainId,
    local,
    public: pub,
    wallet,
    test,
    sender: SENDER,
    async send(to, name, functionName, args, from) {
      if (from) {
        await test.impersonateAccount({ address: from });
        await test.setBalance({ address: from, value: 10n ** 18n });
      }
      const hash = await wallet.writeContract({
        chain: null,
        account: from ?? SENDER,
        address: to,
        abi: artifacts[name].abi as Abi,
        functionName,
        args,
      });
      const receipt = await pub.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${name}.${functionName} reverted`);
      return hash;
    },
  };
}

/** Deploys one of solidity/artifacts.json. */
export async function deployContract(chain: IndexedChain, name: Name, args: unknown[] = []): Promise<Hex> {
  const hash = await chain.wallet.deployContract({
    chain: null,
    account: SENDER,
    abi: artifacts[name].abi as Abi,
    bytecode: artifacts[name].bytecode as Hex,
    args,
  });
  const { contractAddress } = await chain.public.waitForTransactionReceipt({ hash });
  return contractAddress!;
}

/** One of our contracts' code at `address` (where the real one lives: a registry token, Permit2), with empty storage. */
export async function contractAt(chain: IndexedChain, name: Name, address: Hex, args: unknown[] = []): Promise<Hex> {
  const deployed = await deployContract(chain, name, args);
  await chain.test.setCode({ address, bytecode: (await chain.public.getCode({ address: deployed }))! });
  return address;
}

/** Our test token's code at `address` (a token the chain registry lists), with empty storage. */
export const tokenAt = (chain: IndexedChain, address: Hex, decimals = 6): Promise<Hex> =>
  contractAt(chain, 'TestToken', address, ['Test USD', 'TUSD', decimals]);

/**
 * DevnetCompact's code at `at` with a SignerAllocator of `allocator` at that address, registered, as `npm run devnet`
 * sets them up: where `allocator` is the service's allocator key's address, the service's lock tag names it, so its
 * locks take real deposits and the claims it authorizes settle (and count as its own). `at`: COMPACT_ADDRESS, whose
 * domain the service and its clients sign in.
 */
export async function compactAt(chain: IndexedChain, at: Hex, allocator: Hex): Promise<Hex> {
  await contractAt(chain, 'DevnetCompact', at);
  // Signer and compact are immutables: they travel with the code.
  await contractAt(chain, 'SignerAllocator', allocator, [allocator, at]);
  await chain.send(at, 'DevnetCompact', '__registerAllocator', [allocator, '0x']);
  return at;
}

/** Plenty of `token` for the sender, which `compact` may take: each `deposit` of it after this is one transaction. */
export async function fundDeposits(chain: IndexedChain, compact: Hex, token: Hex): Promise<void> {
  await chain.send(token, 'TestToken', 'mint', [chain.sender.address, 10n ** 30n]);
  await chain.send(token, 'TestToken', 'approve', [compact, maxUint256]);
}

/** A deposit of the sender's `token` into the lock (lockTag, token) for `recipient`, after `fundDeposits`. */
export const deposit = (
  chain: IndexedChain,
  compact: Hex,
  lockTag: string,
  token: Hex,
  recipient: Hex,
  amount: bigint,
) => chain.send(compact, 'DevnetCompact', 'depositERC20', [token, lockTag, amount, recipient]);
