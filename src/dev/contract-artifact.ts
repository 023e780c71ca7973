/**
 * The devnet's compact and Permit2: ours (solidity/artifacts.json), or a compiled contract's JSON file that
 * DEVNET_COMPACT_ARTIFACT / DEVNET_PERMIT2_ARTIFACT name (a Foundry `out/X.sol/X.json`), placed at the same address
 * with its constructor run there, so that what it computes from address(this) is the address's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  domainSeparator,
  isHex,
  toFunctionSignature,
  type Abi,
  type AbiFunction,
  type BaseError,
  type Account,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from 'viem';
import artifacts from '../../solidity/artifacts.json';
import { compactDomain } from '../compact/eip712';
import { ConfigError } from '../env';

export type DevnetRole = 'compact' | 'permit2';

const ROLES = {
  compact: {
    setting: 'DEVNET_COMPACT_ARTIFACT',
    ours: 'DevnetCompact',
    // What the devnet and its scripts call: registration, deposits, every claim a claim authorization may name.
    calls: [
      '__registerAllocator',
      'depositERC20',
      'multichainClaim',
      'exogenousClaim',
      'batchMultichainClaim',
      'exogenousBatchClaim',
      'DOMAIN_SEPARATOR',
    ],
    domain: (chainId: number, address: Hex) => compactDomain(chainId, address),
  },
  permit2: {
    setting: 'DEVNET_PERMIT2_ARTIFACT',
    ours: 'Permit2',
    calls: ['permitWitnessTransferFrom', 'DOMAIN_SEPARATOR'],
    domain: (chainId: number, verifyingContract: Hex) => ({ name: 'Permit2', chainId, verifyingContract }),
  },
} as const;

/** A contract the devnet places: its ABI, its creation code and where it came from (ours, or a file). */
export interface DevnetContract {
  role: DevnetRole;
  source: string;
  abi: Abi;
  bytecode: Hex;
}

/** The functions, as ours declare them (every overload), that `abi` lacks: the signatures of the devnet's calls. */
function missingCalls(role: DevnetRole, abi: Abi): string[] {
  const signatures = (items: Abi, names: readonly string[]) =>
    items
      .filter((item): item is AbiFunction => item.type === 'function' && names.includes(item.name))
      .map((fn) => toFunctionSignature(fn));
  const ours = artifacts[ROLES[role].ours].abi as Abi;
  const theirs = new Set(signatures(abi, ROLES[role].calls));
  return signatures(ours, ROLES[role].calls).filter((s) => !theirs.has(s));
}

/**
 * A compiled contract's JSON: `abi` and `bytecode`, the creation code as a string (our artifacts.json's entries) or
 * as `{ object }` (Foundry's `out/` files), checked to have every function the devnet calls on `role`.
 */
export function readArtifact(file: string, role: DevnetRole): DevnetContract {
  const { setting } = ROLES[role];
  let json: { abi?: unknown; bytecode?: unknown };
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${setting}: cannot read ${file} as JSON (${(err as Error).message})`);
  }
  const raw =
    typeof json?.bytecode === 'object' ? (json.bytecode as { object?: unknown } | null)?.object : json?.bytecode;
  if (!Array.isArray(json?.abi) || typeof raw !== 'string')
    throw new ConfigError(`${setting}: ${file} has no "abi" array and "bytecode" (a string or { "object": ... })`);
  const bytecode = (raw.startsWith('0x') ? raw : `0x${raw}`) as Hex;
  // Unlinked library references (__$…$__) are not hex; an interface or abstract contract has no creation code.
  if (!isHex(bytecode) || bytecode === '0x')
    throw new ConfigError(
      `${setting}: the bytecode of ${file} is not creation code (empty, or has unlinked libraries)`,
    );
  const abi = json.abi as Abi;
  const missing = missingCalls(role, abi);
  if (missing.length)
    throw new ConfigError(`${setting}: ${file} lacks what the devnet calls on the ${role}: ${missing.join(', ')}`);
  return { role, source: file, abi, bytecode };
}

/** The devnet's contract for `role`: the file its setting names (relative to the working directory), else ours. */
export function devnetContract(env: NodeJS.ProcessEnv, role: DevnetRole): DevnetContract {
  const file = env[ROLES[role].setting];
  if (file) return readArtifact(path.resolve(file), role);
  const ours = ROLES[role].ours;
  return { role, source: `our ${ours}`, abi: artifacts[ours].abi as Abi, bytecode: artifacts[ours].bytecode as Hex };
}

export interface ChainClients {
  public: PublicClient;
  test: TestClient;
  wallet: WalletClient<Transport, Chain | undefined, Account>;
}

/**
 * Places a contract at `address` as if created there: its creation code becomes the account's code and is called,
 * which runs the constructor with address(this) = `address` (immutables computed from it, storage written to it),
 * and the runtime code the constructor returns replaces it. Creating it elsewhere and copying its runtime code would
 * keep the creator's address in the immutables (Permit2's and The Compact's cached domain separators). The account's
 * nonce is set to a new contract's, 1, so contracts the constructor creates get the addresses a real creation gives
 * them (The Compact finds its metadata renderer by that nonce).
 */
export async function placeContract(chain: ChainClients, address: Hex, contract: DevnetContract) {
  await chain.test.setCode({ address, bytecode: contract.bytecode });
  await chain.test.setNonce({ address, nonce: 1 });
  // The call returns the runtime code; the same call as a transaction keeps the constructor's storage and creations.
  let runtime: Hex | undefined;
  try {
    ({ data: runtime } = await chain.public.call({ account: chain.wallet.account, to: address }));
  } catch (err) {
    const reason = (err as BaseError).shortMessage ?? String(err);
    throw new ConfigError(`${contract.source}: its constructor reverted at ${address} (${reason})`);
  }
  if (!runtime || runtime === '0x') throw new ConfigError(`${contract.source}: its constructor returned no code`);
  const hash = await chain.wallet.sendTransaction({ chain: null, to: address });
  // Mined before the runtime code replaces the creation code, which the transaction must run (the devnet's chains
  // mine on a timer).
  await chain.test.mine({ blocks: 1 });
  if ((await chain.public.waitForTransactionReceipt({ hash })).status !== 'success')
    throw new ConfigError(`${contract.source}: its constructor reverted at ${address} (${hash})`);
  await chain.test.setCode({ address, bytecode: runtime });
  await checkDomain(chain, address, contract);
}

/**
 * Fails unless the contract at `address` answers DOMAIN_SEPARATOR() with the EIP-712 domain of its role at that
 * address on this chain: the domain clients and the service sign in, so any other makes every signature fail there.
 */
export async function checkDomain(chain: Pick<ChainClients, 'public'>, address: Hex, contract: DevnetContract) {
  const chainId = await chain.public.getChainId();
  const expected = domainSeparator({ domain: ROLES[contract.role].domain(chainId, address) });
  const actual = await chain.public.readContract({ address, abi: contract.abi, functionName: 'DOMAIN_SEPARATOR' });
  if (actual !== expected)
    throw new ConfigError(
      `${contract.source} at ${address} answers DOMAIN_SEPARATOR() ${String(actual)}, not the ${contract.role}'s ` +
        `EIP-712 domain at that address on chain ${chainId} (${expected}): signatures made for it would fail there`,
    );
}
