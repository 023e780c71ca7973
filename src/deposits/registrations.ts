import type { Db, Tx } from '../db/types';
import {
  addSessions,
  consumeAccountNonce,
  type DepositAccount,
  type NewAccount,
  registerAccount,
  releaseRegistration,
} from './account-store';
import { depositError } from './errors';
import type { AccountProof, SessionDetails } from './session-digest';

type Path = (string | number)[];

/**
 * Takes the nonce of an account signature in the caller's transaction, else 409: a nonce not above the last one the
 * account signed with (for any project) is a replay or superseded. The registration it proved, sent again, passes.
 */
async function takeNonce(
  tx: Tx,
  address: string,
  nonce: string,
  path: Path,
  projectId?: string,
): Promise<'taken' | 'replay'> {
  const outcome = await consumeAccountNonce(tx, address, nonce, projectId);
  if (outcome === 'stale') {
    throw depositError(
      'CONFLICT',
      'This account signature was already used or superseded: sign again with a higher nonce',
      undefined,
      [{ message: 'is not above the last nonce the account signed with', path, code: 'nonce' }],
    );
  }
  return outcome;
}

/**
 * Records a checked registration in one transaction: the account signature's nonce (`proof`, at `paths.nonce`), the
 * account, and its owner's sessions when given. `onChain`: the account proved itself by enabling the project's signer
 * on chain. Nothing of a refused registration stays, its nonce included: other details than the registered ones are a
 * 409 at `paths.address`.
 */
export async function recordRegistration(
  db: Db,
  projectId: string,
  account: NewAccount,
  proven: { proof?: AccountProof; onChain: boolean; sessions?: SessionDetails },
  paths: { nonce: Path; address: Path },
): Promise<{ account: DepositAccount; created: boolean }> {
  const { proof, onChain, sessions } = proven;
  return db.transaction(async (tx) => {
    const fresh = proof && (await takeNonce(tx, account.address, proof.nonce, paths.nonce, projectId)) === 'taken';
    const r = await registerAccount(tx, projectId, account, fresh ? proof : onChain ? { nonce: null } : undefined);
    if (r.conflict === 'details') {
      throw depositError('CONFLICT', 'This account is already registered with other details', undefined, [
        { message: 'is already registered with other details', path: paths.address, code: 'conflict' },
      ]);
    }
    if (sessions) await addSessions(tx, account.address, projectId, sessions.hashesAndChainIds, sessions.signature);
    return r;
  });
}

/** Ends the registration of the account for `sessionSigner`'s project, taking the release signature's nonce (at `noncePath`). */
export async function releaseAccount(
  db: Db,
  address: string,
  nonce: string,
  sessionSigner: string,
  noncePath: Path,
): Promise<void> {
  await db.transaction(async (tx) => {
    await takeNonce(tx, address, nonce, noncePath);
    await releaseRegistration(tx, address, sessionSigner);
  });
}

/** Adds the owner's checked session details to a registered account. */
export async function addAccountSessions(db: Db, account: DepositAccount, sessions: SessionDetails): Promise<void> {
  await db.transaction((tx) =>
    addSessions(tx, account.address, account.projectId, sessions.hashesAndChainIds, sessions.signature),
  );
}
