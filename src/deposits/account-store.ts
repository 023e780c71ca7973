import type { Tx } from '../db/types';
import { getAddress } from 'viem';
import { toCaip2 } from '../chains/registry';

export type OwnerType = 'EOA' | 'smartAccount';

export interface NewAccount {
  address: string;
  owner: string;
  ownerType: OwnerType;
  managed: boolean;
  sessionSigner: string;
  targetChainId: number;
  targetToken: string;
  recipient?: string;
  requireCompliance: boolean;
}

interface AccountRow {
  address: string;
  projectId: string;
  owner: string;
  ownerType: OwnerType;
  managed: boolean;
  sessionSigner: string;
  targetChainId: string;
  targetToken: string;
  recipient: string;
  requireCompliance: boolean;
  createdAt: Date;
  sessionChains: string[];
  proven: boolean;
}

/** A registered account: what was registered (the recipient defaulted), its project and its session chains. */
export interface DepositAccount extends Required<NewAccount> {
  projectId: string;
  sessionChainIds: number[];
  createdAt: Date;
  /** the account proved it is this project's (its signature, or the project's session signer enabled on chain) */
  proven: boolean;
}

const SELECT = `SELECT a.address, a.project_id AS "projectId", a.owner, a.owner_type AS "ownerType", a.managed,
    a.session_signer AS "sessionSigner", a.target_chain_id AS "targetChainId", a.target_token AS "targetToken",
    a.recipient, a.require_compliance AS "requireCompliance", a.created_at AS "createdAt",
    a.proven_at IS NOT NULL AS proven, coalesce((SELECT array_agg(s.chain_id::text ORDER BY s.chain_id) FROM deposit_sessions s
    WHERE s.account = a.address AND s.project_id = a.project_id), '{}') AS "sessionChains"
  FROM deposit_accounts a`;

const fromRow = ({ targetChainId, sessionChains, ...r }: AccountRow): DepositAccount => ({
  ...r,
  targetChainId: Number(targetChainId),
  sessionChainIds: sessionChains.map(Number),
});

/** A project's registration of an address (other projects may register the same address: each has its own). */
export async function findAccount(db: Tx, address: string, projectId: string): Promise<DepositAccount | undefined> {
  const [row]: AccountRow[] = await db.query(`${SELECT} WHERE a.address = $1 AND a.project_id = $2`, [
    address.toLowerCase(),
    projectId,
  ]);
  return row && fromRow(row);
}

/**
 * Registers an account for a project; registering it again with the same details answers the stored account, and
 * `conflict` says when it was registered with other details. Another project's registration of the address does not
 * stand in the way (docs/trust-model.md, deposit accounts). `proof`: the nonce of the account's own signature that
 * came with this registration (already consumed, `consumeAccountNonce`), or null for the account having enabled the
 * project's session signer on chain; a proven registration from now on receives its deposits.
 */
export async function registerAccount(
  tx: Tx,
  projectId: string,
  a: NewAccount,
  proof?: { nonce: string | null },
): Promise<{ account: DepositAccount; created: boolean; conflict?: 'details' }> {
  const values = [
    a.address.toLowerCase(),
    projectId,
    a.owner.toLowerCase(),
    a.ownerType,
    a.managed,
    a.sessionSigner.toLowerCase(),
    a.targetChainId,
    a.targetToken.toLowerCase(),
    (a.recipient ?? a.address).toLowerCase(),
    a.requireCompliance,
    proof?.nonce ?? null,
    proof !== undefined,
  ];
  const inserted: unknown[] = await tx.query(
    `INSERT INTO deposit_accounts (address, project_id, owner, owner_type, managed, session_signer, target_chain_id, target_token, recipient, require_compliance, proven_nonce, proven_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $12 THEN now() END) ON CONFLICT (address, project_id) DO NOTHING RETURNING address`,
    values,
  );
  const account = (await findAccount(tx, a.address, projectId))!;
  if (inserted.length) return { account, created: true };
  const same =
    account.owner === values[2] &&
    account.ownerType === a.ownerType &&
    account.managed === a.managed &&
    account.targetChainId === a.targetChainId &&
    account.targetToken === values[7] &&
    account.recipient === values[8] &&
    account.requireCompliance === a.requireCompliance;
  if (same && proof?.nonce) {
    await tx.query(
      'UPDATE deposit_accounts SET proven_at = now(), proven_nonce = $3, released_at = NULL WHERE address = $1 AND project_id = $2',
      [values[0], projectId, proof.nonce],
    );
  } else if (same && proof) await markProven(tx, a.address, projectId);
  return { account, created: false, ...(same ? {} : { conflict: 'details' as const }) };
}

/**
 * Takes the nonce of one of the account's own signatures (a registration or a release), in the caller's
 * transaction: it must be above every nonce the account signed with before, for any project. `replay`: the nonce
 * is the account's last, and proved this project's registration: the same registration sent again, which changes
 * nothing.
 */
export async function consumeAccountNonce(
  tx: Tx,
  address: string,
  nonce: string,
  projectId?: string,
): Promise<'taken' | 'replay' | 'stale'> {
  const taken: unknown[] = await tx.query(
    `INSERT INTO deposit_account_nonces (address, nonce) VALUES ($1, $2) ON CONFLICT (address) DO UPDATE SET nonce = EXCLUDED.nonce, updated_at = now()
     WHERE deposit_account_nonces.nonce < EXCLUDED.nonce RETURNING 1`,
    [address.toLowerCase(), nonce],
  );
  if (taken.length) return 'taken';
  if (!projectId) return 'stale';
  const [again]: unknown[] = await tx.query(
    `SELECT 1 FROM deposit_accounts a JOIN deposit_account_nonces n ON n.address = a.address AND n.nonce = a.proven_nonce
     WHERE a.address = $1 AND a.project_id = $2 AND a.proven_nonce = $3 AND a.released_at IS NULL`,
    [address.toLowerCase(), projectId, nonce],
  );
  return again ? 'replay' : 'stale';
}

/**
 * The account enabled the project's session signer on chain: its registration is proven, unless released (the
 * account's signed release stands until it signs a registration again) or proven already.
 */
export async function markProven(db: Tx, address: string, projectId: string): Promise<void> {
  await db.query(
    'UPDATE deposit_accounts SET proven_at = now() WHERE address = $1 AND project_id = $2 AND proven_at IS NULL AND released_at IS NULL',
    [address.toLowerCase(), projectId],
  );
}

/**
 * Ends the hold of the registration whose session signer is `sessionSigner` (at most one: each project has its
 * own): it receives none of the account's deposits from now on, until the account signs a registration for it
 * again. What it already received stays its own.
 */
export async function releaseRegistration(tx: Tx, address: string, sessionSigner: string): Promise<void> {
  await tx.query(
    'UPDATE deposit_accounts SET released_at = now(), proven_at = NULL, proven_nonce = NULL WHERE address = $1 AND session_signer = $2 AND released_at IS NULL',
    [address.toLowerCase(), sessionSigner.toLowerCase()],
  );
}

/**
 * The registration a transfer into `address` belongs to: of those not released, the one the account itself signed
 * for last, else the earliest (a later registration by another project never takes deposits from it without the
 * account's signature).
 */
export const OWNING_REGISTRATION = `SELECT * FROM deposit_accounts WHERE address = $1 AND released_at IS NULL
  ORDER BY proven_at DESC NULLS LAST, created_at, project_id LIMIT 1`;

/** The registration a transfer into `address` belongs to (OWNING_REGISTRATION), if any. */
export async function findOwningRegistration(
  tx: Tx,
  address: string,
): Promise<{ projectId: string; address: string } | undefined> {
  const [account]: { projectId: string; address: string }[] = await tx.query(
    `SELECT a.project_id AS "projectId", a.address FROM (${OWNING_REGISTRATION}) a`,
    [address.toLowerCase()],
  );
  return account;
}

/** A later session for a chain replaces the earlier one (the owner re-enabled it). */
export async function addSessions(
  tx: Tx,
  account: string,
  projectId: string,
  sessions: { chainId: number; sessionDigest: string }[],
  signature: string,
): Promise<void> {
  await tx.query(
    `INSERT INTO deposit_sessions (account, project_id, chain_id, session_digest, signature) SELECT $1, $5, * FROM unnest($2::bigint[], $3::text[], $4::text[])
     ON CONFLICT (account, project_id, chain_id) DO UPDATE SET session_digest = EXCLUDED.session_digest, signature = EXCLUDED.signature, created_at = now()`,
    [
      account.toLowerCase(),
      sessions.map((s) => s.chainId),
      sessions.map((s) => s.sessionDigest.toLowerCase()),
      sessions.map(() => signature),
      projectId,
    ],
  );
}

/** The wire shape (docs/deposit-processor.md, Accounts and sessions): chains CAIP-2, addresses checksummed. */
export const presentAccount = (a: DepositAccount) => ({
  address: getAddress(a.address),
  owner: getAddress(a.owner),
  ownerType: a.ownerType,
  managed: a.managed,
  sessionSigner: getAddress(a.sessionSigner),
  target: { chain: toCaip2(a.targetChainId), token: getAddress(a.targetToken), recipient: getAddress(a.recipient) },
  requireCompliance: a.requireCompliance,
  sessionChains: a.managed ? ('all' as const) : a.sessionChainIds.map(toCaip2),
  createdAt: a.createdAt.toISOString(),
});
