import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/registry';
import type { ChainRpc } from '../chains/rpc';
import type { DepositSettings } from './config';
import { signedBySponsor } from '../intents/verify';
import { PERMIT2_ADDRESS } from '../intents/typed-data';
import { registerAccountTypedData } from './session-digest';

/**
 * Whether the account at `address` on `chainId` has enabled the project's session signer: it accepts, by ERC-1271,
 * the signer's signature of a RegisterAccount for itself (what a managed account is: the signer can move its funds).
 * An address without code, a chain without RPC_URL_<chainId>, or an RPC that fails proves nothing.
 */
export async function enablesSessionSigner(
  address: string,
  chainId: number,
  signer: PrivateKeyAccount,
  rpc: ChainRpc,
): Promise<boolean> {
  const typedData = registerAccountTypedData(address, chainId, signer.address, { nonce: '0', deadline: '0' });
  try {
    const signature = await signer.signTypedData(typedData as Parameters<PrivateKeyAccount['signTypedData']>[0]);
    return await signedBySponsor(address, signature, typedData, 'ERC7579', rpc);
  } catch {
    return false;
  }
}

/** Addresses below this are precompiles or reserved (no account lives there). */
const LOWEST_ACCOUNT = 2n ** 16n;

/**
 * Why an address can be no deposit account, if it cannot: the zero address and precompiles (every mint or burn would
 * be a deposit), and the service's own contracts (The Compact, Permit2, the settlement contracts it reads and names)
 * and listed tokens, whose every transfer would be one.
 */
export function reservedAddress(address: string, registry: ChainRegistry, config: DepositSettings): string | undefined {
  const a = address.toLowerCase();
  if (BigInt(a) < LOWEST_ACCOUNT) return 'is the zero address or a precompile';
  const contracts = [
    PERMIT2_ADDRESS,
    config.intents.arbiter,
    ...config.intents.arbiters.values(),
    config.intents.compactSigningContract,
    config.allocator.compactAddress,
    ...config.chainIndexer.chains.flatMap((c) => [c.compact, c.permit2, ...(c.filler ? [c.filler] : [])]),
  ];
  if (contracts.some((c) => c.toLowerCase() === a)) return "is one of the service's contracts";
  if (registry.chains.some((c) => c.tokens.some((t) => t.address.toLowerCase() === a))) return 'is a token contract';
  return undefined;
}
