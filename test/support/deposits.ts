import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { registerAccountTypedData, sessionTypedData } from '../../src/deposits/session-digest';
import { BASE_USDC, blockAt, claimEvent, eventId, fillEvent, walletSnapshot } from './fixtures';
import { call } from './harness';
import type { Project } from './projects';

export const DP = '/deposit-processor';

/** A fresh owner and account address; the owner signs sessions over the documented digest. */
export function newOwner() {
  const owner = privateKeyToAccount(generatePrivateKey());
  const account = privateKeyToAccount(generatePrivateKey());
  return { owner, address: account.address, account };
}

/**
 * The account's own signature for the project's session signer (RegisterAccount): what proves a registration is
 * the project's, so its deposits are moved (an unproven one's are only recorded).
 */
export async function accountProof(account: PrivateKeyAccount, targetChainId: number, signer: string) {
  const proof = {
    nonce: String(Date.now() * 1000 + Math.floor(Math.random() * 1000)),
    deadline: String(Math.floor(Date.now() / 1000) + 3600),
  };
  const accountSignature = await account.signTypedData(
    registerAccountTypedData(account.address, targetChainId, signer, proof) as Parameters<
      typeof account.signTypedData
    >[0],
  );
  return { accountSignature, accountNonce: proof.nonce, accountDeadline: proof.deadline };
}

export const sessionDigest = (n: number) => `0x${n.toString(16).padStart(64, 'a')}` as `0x${string}`;

/** The project's session signer, as a widget backend reads it. */
export const projectSigner = async (p: Project): Promise<string> =>
  (await call(p, 'GET', `${DP}/chains`)).json.sessionSigner;

export async function signSessions(
  owner: ReturnType<typeof newOwner>['owner'],
  address: string,
  targetChainId: number,
  chainIds: number[],
  signer: string,
) {
  const hashesAndChainIds = chainIds.map((chainId) => ({ chainId, sessionDigest: sessionDigest(chainId) }));
  const signature = await owner.signTypedData(
    sessionTypedData(address, targetChainId, { hashesAndChainIds }, signer) as Parameters<
      typeof owner.signTypedData
    >[0],
  );
  return { hashesAndChainIds, signature };
}

/**
 * Registers a managed account with the processor's signer (read from GET /chains, as a widget backend would), proven
 * by the account's signature unless `unproven`.
 */
export async function registerManaged(
  p: Project,
  target: { chain: string; token: string; recipient?: string },
  extra: Record<string, unknown> = {},
  unproven = false,
) {
  const { owner, address, account } = newOwner();
  const signer = await projectSigner(p);
  const proof = unproven ? {} : await accountProof(account, Number(target.chain.split(':')[1]), signer);
  const res = await call(p, 'POST', `${DP}/register-managed`, {
    body: { account: { address, owner: owner.address, sessionSigner: signer, target, ...proof, ...extra } },
  });
  if (res.status !== 201) throw new Error(`register-managed: ${res.status} ${res.text}`);
  return { owner, address, account, record: res.json };
}

/**
 * What an indexer reports for a transfer into an account (of USDC on Base unless `chainId` and `token` say otherwise):
 * its balance snapshot and the deposit itself.
 */
export const depositEvents = ({
  chainId = 8453,
  token = BASE_USDC,
  ...d
}: {
  chainId?: number;
  token?: string;
  amount: string;
  account: string;
  sender: string;
  txHash: string;
  logIndex?: number;
  balance?: string;
  block?: number;
  /** the fill in the same transaction that made the transfer */
  fillNonce?: string;
}) => [
  ...(d.balance ? [walletSnapshot(d.account, d.balance, { chainId, token, blockNumber: String(d.block ?? 100) })] : []),
  {
    id: eventId('deposit'),
    type: 'deposit',
    chainId,
    transactionHash: d.txHash,
    logIndex: d.logIndex ?? 0,
    token,
    amount: d.amount,
    sender: d.sender,
    account: d.account,
    blockNumber: d.block ?? 100,
    fillNonce: d.fillNonce, // left out of the JSON when undefined
  },
];

export const fillAndClaim = (
  intentId: string,
  fill: { chainId: number; txHash: string },
  claim: { chainId: number; txHash: string },
) => [
  fillEvent(intentId, fill.txHash, { chainId: fill.chainId }),
  claimEvent(intentId, claim.txHash, { chainId: claim.chainId }),
];

/**
 * A deposit account's (wallet) balance at the block after `expires` of a failed intent: what releases its
 * reservation past `expires` (a snapshot that shows no claim mined before it), so a retry or refund may spend.
 */
export const balanceAtExpiry = (d: {
  chainId: number;
  token: string;
  account: string;
  balance: string;
  expires: number;
}) =>
  walletSnapshot(d.account, d.balance, {
    chainId: d.chainId,
    token: d.token,
    // A wallet's funds may still be pulled through Permit2 in a block stamped `expires`: the next second settles it.
    blockNumber: blockAt(d.expires + 1),
    blockTimestamp: d.expires + 1,
  });

export const intentFailure = (intentId: string, chainId: number) => ({
  id: eventId('failure'),
  type: 'failure',
  chainId,
  nonce: intentId,
  reason: 'relayer reverted',
});
