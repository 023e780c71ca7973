import { getAddress, hashTypedData, isAddressEqual, type Hex } from 'viem';
import { recoverSigner } from '../signatures/secp256k1';
import { members } from '../signatures/eip712-members';

/** The account's signature over a withdrawal request and the unix-second deadline it signed with it. */
export interface SponsorAuthorization {
  signature: Hex;
  deadline: number;
}

/** A withdrawal as POST /withdrawals asks for it; defined here, beside the signature over it, which allocate.ts checks. */
export interface WithdrawalRequest {
  kind: 'single' | 'batch';
  account: string;
  chainId: number;
  transfers: { recipient: string; tokenAddress: string; amount: string; lockTag?: string }[];
  /** the account's own signature over this request: proves the account to the project */
  authorization?: SponsorAuthorization;
}

/** A signed request is good for this long at most, so a leaked one cannot be held back and replayed later. */
export const MAX_DEADLINE_SECONDS = 3600;

/**
 * EIP-712 typed data the account signs to let a project withdraw for it: domain `IntentOrchestrator`/`1` on the
 * withdrawal's chain, its `verifyingContract` the project's signing address (GET /deposit-processor/chains →
 * `sessionSigner`), so a signature made for one project is void in any other. A transfer without a lock tag signs
 * this allocator's (`/health`'s `lockTag`), the one it spends. One signature authorizes one allocation.
 */
export function withdrawalRequestTypedData(
  req: Pick<WithdrawalRequest, 'account' | 'chainId' | 'transfers'>,
  deadline: number,
  defaultLockTag: string,
  projectAddress: string,
) {
  return {
    domain: {
      name: 'IntentOrchestrator',
      version: '1',
      chainId: req.chainId,
      verifyingContract: getAddress(projectAddress),
    },
    types: {
      WithdrawalRequest: members('address account,Transfer[] transfers,uint256 deadline'),
      Transfer: members('address recipient,address token,uint256 amount,bytes12 lockTag'),
    },
    primaryType: 'WithdrawalRequest',
    message: {
      account: getAddress(req.account),
      transfers: req.transfers.map((t) => ({
        recipient: getAddress(t.recipient),
        token: getAddress(t.tokenAddress),
        amount: BigInt(t.amount),
        lockTag: (t.lockTag ?? defaultLockTag) as Hex,
      })),
      deadline: BigInt(deadline),
    },
  } as const;
}

/**
 * The request's digest when the signature is the account's (an EOA: smart accounts register through a signed
 * intent or the operator) and the deadline is in the future and not too far; otherwise null.
 */
export async function withdrawalRequestDigest(
  req: WithdrawalRequest,
  auth: SponsorAuthorization,
  defaultLockTag: string,
  projectAddress: string,
): Promise<string | null> {
  const now = Math.floor(Date.now() / 1000);
  if (auth.deadline <= now || auth.deadline > now + MAX_DEADLINE_SECONDS) return null;
  try {
    const digest = hashTypedData(withdrawalRequestTypedData(req, auth.deadline, defaultLockTag, projectAddress));
    const signer = await recoverSigner(digest, auth.signature);
    return isAddressEqual(signer, getAddress(req.account)) ? digest : null;
  } catch {
    return null;
  }
}
