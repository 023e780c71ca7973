import { createHash } from 'node:crypto';
import { getAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Db, Tx } from '../db/types';
import type { ChainRegistry } from '../chains/registry';
import type { AllocatorConfig } from './config';
import { DomainError } from '../errors';
import { InsufficientBalance, releaseAfterExpiry, reserve, settleOnClaims } from '../ledger/ledger';
import { allocateWithdrawalNonce } from '../ledger/nonces';
import { queueStart, type QueuedStart } from '../outbox/store';
import { type Allowance, beyondAllowance, lockProvenAccount, proveAccount } from '../projects/account-store';
import {
  withdrawalWorkflowId,
  withdrawalWorkflowType,
  type WithdrawalClaim,
} from '../../workflows/contracts/withdrawal';
import { withdrawalRequestDigest, type WithdrawalRequest } from './sponsor-signature';
import {
  type Allocation,
  countOutstandingWithdrawals,
  endWithdrawal,
  findForcedWithdrawal,
  findKeyedAllocation,
  insertWithdrawal,
  markWithdrawalClaimed,
  pruneIdempotencyKeys,
  setKeyNonce,
  takeIdempotencyKey,
} from './store';
import { tokenId } from '../intents/quote';
import { resetPeriodSeconds } from '../chains/lock-tag';
import { batchCompactAuthorization, compactAuthorization, Lock } from '../compact/eip712';

/** `projectAddress`: the project's signing address, which names it in the signed request's domain. */
export interface AllocatorDeps {
  registry: ChainRegistry;
  config: { allocator: AllocatorConfig };
  lockTag: string;
  allocator: PrivateKeyAccount;
  projectAddress: string;
}

/** `start` is absent when an Idempotency-Key answered an earlier allocation (its hold was queued then). */
export interface Allocated {
  value: Allocation;
  start?: QueuedStart;
}

/** How long an Idempotency-Key answers its first request; afterwards the same key makes a new allocation. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;

/**
 * Allocates a withdrawal (an allocated transfer whose claimants carry lock tag 0) in one transaction: checks, a fresh
 * nonce recorded before signing, the reservation on the shared ledger, the allocator's signature over the Compact
 * (or BatchCompact) exactly as The Compact rebuilds it, and the stored record. Any refusal (a DomainError: FORBIDDEN
 * for an account that has not proved itself, IDEMPOTENCY_KEY_REUSED, TOO_MANY_REQUESTS over the limit, else a
 * request the allocator refuses) rolls all of it back (the nonce's sequence value stays spent, so it is never handed
 * out again).
 */
export async function allocateWithdrawal(
  db: Db,
  req: WithdrawalRequest,
  projectId: string,
  deps: AllocatorDeps,
  idempotencyKey?: string,
): Promise<Allocated> {
  // The signature is checked before the transaction: pure CPU has no business holding a connection and row locks.
  const digest = req.authorization
    ? await withdrawalRequestDigest(req, req.authorization, deps.lockTag, deps.projectAddress)
    : null;
  if (req.authorization && !digest) {
    throw new DomainError(
      'FORBIDDEN',
      'sponsorSignature is not a valid signature of this request by the account (or its deadline passed)',
    );
  }
  const key = idempotencyKey
    ? { key: idempotencyKey, requestHash: createHash('sha256').update(JSON.stringify(req)).digest('hex') }
    : undefined;
  try {
    return await db.transaction(async (tx) => {
      const earlier = key && (await useIdempotencyKey(tx, projectId, key));
      if (earlier) return { value: earlier };
      const made = await allocate(tx, req, projectId, digest, deps);
      if (key) await setKeyNonce(tx, projectId, key.key, made.value.nonce);
      return made;
    });
  } catch (e) {
    if (e instanceof InsufficientBalance) throw new DomainError('INSUFFICIENT_BALANCE', e.message);
    if (
      (e as { code?: string }).code === '23505' &&
      String((e as { constraint?: string }).constraint).includes('request_digest')
    ) {
      throw new DomainError('VALIDATION_ERROR', 'This signed withdrawal request was already used; sign a new one');
    }
    throw e;
  }
}

/**
 * Takes an Idempotency-Key for this request, first in the transaction (before any other lock): a concurrent request
 * with the same key waits here for this one's commit, then finds the allocation it made. Answers the earlier
 * allocation when the key came with this same request within IDEMPOTENCY_KEY_TTL_HOURS; refuses (422) when it came
 * with another. A refused request rolls its key back with everything else, so its retry allocates afresh.
 */
async function useIdempotencyKey(
  tx: Tx,
  projectId: string,
  k: { key: string; requestHash: string },
): Promise<Allocation | undefined> {
  if (await takeIdempotencyKey(tx, projectId, k, IDEMPOTENCY_KEY_TTL_HOURS)) {
    // A few keys past their time go with each new one: the table stays small.
    await pruneIdempotencyKeys(tx, IDEMPOTENCY_KEY_TTL_HOURS);
    return undefined;
  }
  const earlier = await findKeyedAllocation(tx, projectId, k.key);
  if (earlier.requestHash !== k.requestHash) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency-Key ${k.key} was used with another request within ${IDEMPOTENCY_KEY_TTL_HOURS} hours; send a new key`,
    );
  }
  return earlier.response;
}

/**
 * Only accounts that proved themselves to the project are allocated for, and each has a bounded number of
 * outstanding authorizations per project, so no key can tie up someone else's funds and no project can use up
 * another's slots. A signed request proves the account on the spot and covers what it asks; without one, the
 * account's earlier signature must still be in its time (ACCOUNT_PROOF_DAYS), and what withdrawals allocated without
 * a signature hold may not pass, per chain and token, what the account signed for with the project (the operator's
 * registration has neither bound). The (project, account) row is locked first (the global lock order,
 * src/ledger/ledger.ts) and held to the commit: for that pair, the checks and the allocation are one step.
 */
async function authorize(
  tx: Tx,
  req: WithdrawalRequest,
  projectId: string,
  digest: string | null,
  wanted: Allowance[],
  deps: AllocatorDeps,
): Promise<void> {
  const account = getAddress(req.account);
  if (digest)
    await proveAccount(tx, projectId, account, 'withdrawal-signature', wanted, deps.config.allocator.proofDays);
  const proof = await lockProvenAccount(tx, projectId, account);
  if (!proof)
    throw new DomainError(
      'FORBIDDEN',
      `Account ${account} has not authorized this project: send sponsorSignature and deadline signed by the account`,
    );
  if (!digest && proof.expired) {
    throw new DomainError(
      'FORBIDDEN',
      `Account ${account}'s authorization of this project expired (${deps.config.allocator.proofDays} days after its last signature): send sponsorSignature and deadline signed by the account`,
    );
  }
  if (!digest && !proof.operator) {
    const beyond = await beyondAllowance(tx, projectId, account, wanted);
    if (beyond.length) {
      throw new DomainError(
        'FORBIDDEN',
        `Withdrawals of ${beyond[0].token} on chain ${beyond[0].chainId} without the account's signature would hold more than it signed for with this project: send sponsorSignature and deadline signed by the account`,
      );
    }
  }
  const n = await countOutstandingWithdrawals(tx, account.toLowerCase(), projectId);
  if (n >= deps.config.allocator.maxOutstandingWithdrawals) {
    throw new DomainError(
      'TOO_MANY_REQUESTS',
      `Account ${account} has ${n} outstanding withdrawal authorizations with this project (limit ${deps.config.allocator.maxOutstandingWithdrawals}); wait for one to be claimed or expire`,
    );
  }
}

async function allocate(
  tx: Tx,
  req: WithdrawalRequest,
  projectId: string,
  digest: string | null,
  deps: AllocatorDeps,
): Promise<{ value: Allocation; start: QueuedStart }> {
  if (!deps.registry.chain(req.chainId)) throw new DomainError('UNSUPPORTED_CHAIN', `Unsupported chain ${req.chainId}`);
  const lockTags = new Set(req.transfers.map((t) => (t.lockTag ?? deps.lockTag).toLowerCase()));
  if (lockTags.size > 1)
    throw new DomainError('VALIDATION_ERROR', 'All transfers of a batch must spend locks of one allocator');
  // The lock tag's low 92 bits are the allocator id; its top nibble (scope, reset period) may differ.
  if (![...lockTags].every((t) => /^0x[0-9a-f]{24}$/.test(t) && t.slice(3) === deps.lockTag.slice(3))) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `Lock tag ${[...lockTags][0]} is not allocated by this allocator (${deps.allocator.address})`,
    );
  }
  const lockTag = [...lockTags][0] as `0x${string}`;

  // Group by token, keeping the order in which tokens first appear: one id per token, one portion per recipient.
  const byToken = new Map<string, { recipient: string; amount: bigint }[]>();
  for (const t of req.transfers) {
    const token = deps.registry.token(req.chainId, t.tokenAddress);
    if (!token)
      throw new DomainError('UNSUPPORTED_TOKEN', `Token ${t.tokenAddress} not supported on chain ${req.chainId}`);
    const amount = BigInt(t.amount);
    if (amount <= 0n) throw new DomainError('VALIDATION_ERROR', 'Amount must be greater than zero');
    byToken.set(token.address, [...(byToken.get(token.address) ?? []), { recipient: getAddress(t.recipient), amount }]);
  }
  const account = getAddress(req.account);
  const wanted = [...byToken].map(([token, portions]) => ({
    chainId: req.chainId,
    token,
    amount: portions.reduce((sum, p) => sum + p.amount, 0n).toString(),
  }));
  await authorize(tx, req, projectId, digest, wanted, deps);
  for (const token of byToken.keys()) {
    const forced = await findForcedWithdrawal(tx, account.toLowerCase(), req.chainId, tokenId(lockTag, token));
    if (forced)
      throw new DomainError(
        'VALIDATION_ERROR',
        `A forced withdrawal is ${forced} for lock ${tokenId(lockTag, token)}; the allocator no longer allocates it`,
      );
  }

  const nonce = await allocateWithdrawalNonce(tx, account);
  const locks: Lock[] = [...byToken].map(([token, portions]) => ({
    lockTag,
    token: token as `0x${string}`,
    amount: portions.reduce((s, p) => s + p.amount, 0n),
  }));
  await reserve(
    tx,
    { kind: 'withdrawal', id: nonce.toString() },
    account,
    locks.map((l) => ({ chainId: req.chainId, token: l.token.toLowerCase(), lockTag, amount: l.amount.toString() })),
  );

  const now = Math.floor(Date.now() / 1000);
  // Never past the lock's reset period: a forced withdrawal could complete before a longer authorization expires.
  const lifetime = Math.min(deps.config.allocator.withdrawalExpirySeconds, resetPeriodSeconds(lockTag));
  const expires = BigInt(now + lifetime);
  const contract = deps.config.allocator.compactAddress;
  const typedData =
    req.kind === 'single'
      ? compactAuthorization(req.chainId, contract, account, nonce, expires, locks[0])
      : batchCompactAuthorization(req.chainId, contract, account, nonce, expires, locks);
  const allocatorData = await deps.allocator.signTypedData(typedData);

  const transfers = [...byToken].map(([token, portions]) => ({
    id: tokenId(lockTag, token),
    // claimant = lockTag (here bytes12(0): withdraw the underlying token) << 160 | recipient
    portions: portions.map((p) => ({ claimant: BigInt(p.recipient).toString(), amount: p.amount.toString() })),
  }));
  const allocation: Allocation = { nonce: nonce.toString(), expires: expires.toString(), allocatorData, transfers };
  await insertWithdrawal(tx, {
    nonce: nonce.toString(),
    projectId,
    account: account.toLowerCase(),
    chainId: req.chainId,
    kind: req.kind,
    response: allocation,
    expires: Number(expires),
    digest,
  });
  const start: QueuedStart = {
    workflowId: withdrawalWorkflowId(allocation.nonce),
    workflowType: withdrawalWorkflowType,
    args: [allocation.nonce, Number(expires)],
    searchAttributes: {
      IntentStatus: 'ALLOCATED',
      Account: account.toLowerCase(),
      Project: projectId,
      Chains: [String(req.chainId)],
    },
    summary: `Withdrawal ${allocation.nonce}: ${account} on chain ${req.chainId}`,
  };
  await queueStart(tx, start);
  return { value: allocation, start };
}

/**
 * Claimed (the indexer saw its Claim): the reservation settles, released once a snapshot shows the transfer.
 * Expired: the authorization can no longer be used, but a claim mined just before `expires` may not show in the
 * stored balance yet, so the reservation is released by a snapshot at or after `expires` (src/ledger/ledger.ts).
 * The nonce stays spent either way.
 */
export async function finishWithdrawal(
  db: Db,
  nonce: string,
  status: 'CLAIMED' | 'EXPIRED',
  claim?: WithdrawalClaim,
): Promise<void> {
  await db.transaction(async (tx) => {
    if (claim) return recordWithdrawalClaim(tx, nonce, claim);
    const expires = await endWithdrawal(tx, nonce, status);
    if (expires !== undefined) await releaseAfterExpiry(tx, { kind: 'withdrawal', id: nonce }, Number(expires));
  });
}

/**
 * A withdrawal's Claim, recorded by the indexer route as it arrives (and again, idempotently, by its workflow): a
 * claim reported after `expires` was mined before it, so it counts even once the withdrawal EXPIRED.
 */
export async function recordWithdrawalClaim(tx: Tx, nonce: string, claim: WithdrawalClaim): Promise<void> {
  await markWithdrawalClaimed(tx, nonce, claim.chainId);
  await settleOnClaims(tx, [
    { owner: { kind: 'withdrawal', id: nonce }, chainId: claim.chainId, claimBlock: claim.blockNumber },
  ]);
}
