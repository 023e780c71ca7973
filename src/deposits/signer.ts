import { concat, keccak256, toHex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/**
 * The processor's session signer: the key that signs deposit intents for the accounts that enabled it. Derived from
 * the orchestrator key (one secret fewer to provision), under its own label so the two never sign for each other.
 */
export function sessionSigner(orchestratorPrivateKey: `0x${string}`): PrivateKeyAccount {
  return privateKeyToAccount(keccak256(concat([orchestratorPrivateKey, toHex('deposit-session-signer')])));
}
