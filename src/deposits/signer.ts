import { concat, keccak256, toHex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { fastAccount } from '../signatures/secp256k1';

/**
 * Each project's session signer: the key that signs deposit intents (and withdrawals) for the accounts that enabled
 * it on chain. Derived from the orchestrator key (one secret fewer to provision) under a label naming the project, so
 * an account that enabled one project's signer cannot be driven by another project, and neither signs for the
 * orchestrator.
 */
export function sessionSigners(orchestratorPrivateKey: `0x${string}`): (projectId: string) => PrivateKeyAccount {
  const signers = new Map<string, PrivateKeyAccount>();
  return (projectId) => {
    let signer = signers.get(projectId);
    if (!signer) {
      signer = fastAccount(keccak256(concat([orchestratorPrivateKey, toHex('deposit-session'), toHex(projectId)])));
      signers.set(projectId, signer);
    }
    return signer;
  };
}
