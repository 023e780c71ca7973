import { getAddress, type Hex } from 'viem';
import type { ChainRpc } from '../chains/rpc';
import { DomainError } from '../errors';

/**
 * Verifies a smart account's signature over `hash` on chain `chainId` through RPC_URL_<chainId>: ERC-1271 for a
 * deployed account, ERC-6492 (the signature wraps the factory call that would deploy it) for a counterfactual one,
 * both through viem's universal validator. No RPC for the chain is the caller's 400; an RPC that cannot be reached
 * is a 503 with retry-after, never a rejection of a signature nobody could check.
 */
export async function verifyOnChain(
  rpc: ChainRpc,
  chainId: number,
  check: { address: string; hash: Hex; signature: Hex },
): Promise<boolean> {
  const client = rpc.client(chainId);
  if (!client) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `Smart account signatures are verified on chain and this deployment cannot verify them on chain ${chainId}`,
      {
        operatorHint: `set RPC_URL_${chainId} to verify smart-account signatures on chain ${chainId}`,
      },
    );
  }
  let valid: boolean;
  try {
    valid = await client.verifyHash({
      address: getAddress(check.address),
      hash: check.hash,
      signature: check.signature,
    });
  } catch {
    valid = false; // a malformed signature throws as an unreachable RPC does: the probe below tells them apart
  }
  // viem reports a failed eth_call (a transport failure included) as an invalid signature: a rejection stands
  // only if the RPC answers.
  if (!valid) await client.getChainId().catch(() => Promise.reject(rpcUnavailable(chainId)));
  return valid;
}

// The cause stays out of the answer: RPC URLs often carry provider keys.
const rpcUnavailable = (chainId: number) =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    `The RPC of chain ${chainId} is unavailable; signatures cannot be verified now, retry later`,
  );
