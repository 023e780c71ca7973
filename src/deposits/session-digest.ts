import { getAddress, type TypedDataDefinition } from 'viem';

export interface SessionDetails { hashesAndChainIds: { chainId: number; sessionDigest: `0x${string}` }[]; signature: `0x${string}` }

/**
 * What the account owner signs to enable sessions (README: Deposit processor → Sessions): EIP-712 over the account
 * and every (chainId, sessionDigest) pair in the order sent, on the domain of the account's target chain (where a
 * smart-account owner's ERC-1271 check runs).
 */
export function sessionTypedData(account: string, targetChainId: number, details: Pick<SessionDetails, 'hashesAndChainIds'>): TypedDataDefinition {
  return {
    domain: { name: 'Deposit Processor', version: '1', chainId: targetChainId },
    types: {
      EnableSessions: [{ name: 'account', type: 'address' }, { name: 'sessions', type: 'ChainSession[]' }],
      ChainSession: [{ name: 'chainId', type: 'uint256' }, { name: 'sessionDigest', type: 'bytes32' }],
    },
    primaryType: 'EnableSessions',
    message: { account: getAddress(account), sessions: details.hashesAndChainIds.map((s) => ({ chainId: BigInt(s.chainId), sessionDigest: s.sessionDigest })) },
  };
}

export interface WithdrawRequest { account: string; chain: string; token: string; amount: string; recipient: string; nonce: string; signature: `0x${string}` }

/** What the account owner signs to withdraw (README: Deposit processor → Withdrawals), on the withdrawal's chain. */
export function withdrawTypedData(w: Omit<WithdrawRequest, 'signature' | 'chain'>, chainId: number): TypedDataDefinition {
  return {
    domain: { name: 'Deposit Processor', version: '1', chainId },
    types: {
      Withdraw: [
        { name: 'account', type: 'address' }, { name: 'token', type: 'address' }, { name: 'amount', type: 'uint256' },
        { name: 'recipient', type: 'address' }, { name: 'nonce', type: 'uint256' },
      ],
    },
    primaryType: 'Withdraw',
    message: { account: getAddress(w.account), token: getAddress(w.token), amount: BigInt(w.amount), recipient: getAddress(w.recipient), nonce: BigInt(w.nonce) },
  };
}
