import { getAddress, type TypedDataDefinition } from 'viem';
import { members } from '../signatures/eip712-members';

export interface SessionDetails {
  hashesAndChainIds: { chainId: number; sessionDigest: `0x${string}` }[];
  signature: `0x${string}`;
}

/**
 * The domain of what an owner signs: the chain, and the project's session signer as `verifyingContract`, so a
 * signature made for one project (or deployment: the signer derives from its orchestrator key) is void in another.
 */
const domain = (chainId: number, projectSigner: string) => ({
  name: 'Deposit Processor',
  version: '1',
  chainId,
  verifyingContract: getAddress(projectSigner),
});

/**
 * What the account owner signs to enable sessions (docs/deposit-processor.md, The session digest): EIP-712 over
 * the account and every (chainId, sessionDigest) pair in the order sent, on the domain of the account's target chain
 * (where a smart-account owner's ERC-1271 check runs) and the project.
 */
export function sessionTypedData(
  account: string,
  targetChainId: number,
  details: Pick<SessionDetails, 'hashesAndChainIds'>,
  projectSigner: string,
): TypedDataDefinition {
  return {
    domain: domain(targetChainId, projectSigner),
    types: {
      EnableSessions: members('address account,ChainSession[] sessions'),
      ChainSession: members('uint256 chainId,bytes32 sessionDigest'),
    },
    primaryType: 'EnableSessions',
    message: {
      account: getAddress(account),
      sessions: details.hashesAndChainIds.map((s) => ({ chainId: BigInt(s.chainId), sessionDigest: s.sessionDigest })),
    },
  };
}

/** How the account's own signatures (a registration, a release) are bounded: each nonce once, until its deadline. */
export interface AccountProof {
  nonce: string;
  deadline: string;
}

/**
 * What the deposit account itself signs (its own key: ECDSA, or ERC-1271/6492 for a smart account) to show that it
 * uses this project's session signer: the registration carrying it receives the account's deposits, whichever
 * project registered the address first (docs/trust-model.md, deposit accounts). `nonce` must be above every nonce
 * the account signed before (for any project), so a project the account left cannot replay an older signature.
 */
export function registerAccountTypedData(
  account: string,
  targetChainId: number,
  projectSigner: string,
  proof: AccountProof,
): TypedDataDefinition {
  return accountTypedData('RegisterAccount', account, targetChainId, projectSigner, proof);
}

/** What the account signs to end a project's hold on it: that registration receives none of its deposits any more. */
export function releaseAccountTypedData(
  account: string,
  chainId: number,
  projectSigner: string,
  proof: AccountProof,
): TypedDataDefinition {
  return accountTypedData('ReleaseAccount', account, chainId, projectSigner, proof);
}

const ACCOUNT_PROOF = members('address account,address sessionSigner,uint256 nonce,uint256 deadline');

function accountTypedData(
  primaryType: 'RegisterAccount' | 'ReleaseAccount',
  account: string,
  chainId: number,
  projectSigner: string,
  proof: AccountProof,
): TypedDataDefinition {
  return {
    domain: domain(chainId, projectSigner),
    types: primaryType === 'RegisterAccount' ? { RegisterAccount: ACCOUNT_PROOF } : { ReleaseAccount: ACCOUNT_PROOF },
    primaryType,
    message: {
      account: getAddress(account),
      sessionSigner: getAddress(projectSigner),
      nonce: BigInt(proof.nonce),
      deadline: BigInt(proof.deadline),
    },
  };
}

export interface WithdrawRequest {
  account: string;
  chain: string;
  token: string;
  amount: string;
  recipient: string;
  nonce: string;
  deadline: string;
  signature: `0x${string}`;
}

/**
 * What the account owner signs to withdraw (docs/deposit-processor.md, Widget routes: /safe/withdraw), on the
 * withdrawal's chain and the project; `deadline` (Unix seconds) bounds when it may be carried out.
 */
export function withdrawTypedData(
  w: Omit<WithdrawRequest, 'signature' | 'chain'>,
  chainId: number,
  projectSigner: string,
): TypedDataDefinition {
  return {
    domain: domain(chainId, projectSigner),
    types: {
      Withdraw: members(
        'address account,address token,uint256 amount,address recipient,uint256 nonce,uint256 deadline',
      ),
    },
    primaryType: 'Withdraw',
    message: {
      account: getAddress(w.account),
      token: getAddress(w.token),
      amount: BigInt(w.amount),
      recipient: getAddress(w.recipient),
      nonce: BigInt(w.nonce),
      deadline: BigInt(w.deadline),
    },
  };
}
