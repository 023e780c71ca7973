import type { Db, Tx } from '../db/types';
import type { ChainRegistry } from '../chains/registry';
import type { DepositSettings } from './config';
import { availableSources } from '../ledger/ledger';
import type { Logger } from '../logger';
import { leftToSweeper } from '../outbox/left-to-sweeper';
import type { Outbox } from '../outbox/outbox';
import { findAccount } from './account-store';
import { depositCredit, lockDepositAccount } from './credit-store';
import { depositError } from './errors';
import { type DepositRow, depositTiming, loadDeposit, markRecovering } from './store';

/** What a recovery uses of the API's services. */
export interface RecoveryDeps {
  db: Db;
  registry: ChainRegistry;
  config: DepositSettings;
  outbox: Outbox;
  logger: Logger;
  defaultLockTag: `0x${string}`;
}

const at = ['body', 'depositId'];

/**
 * POST /deposits/recovery: a rejected deposit goes back to the account's owner (its refund workflow queued), if the
 * account still holds it. Asking again answers the same recovery.
 */
export async function recoverDeposit(s: RecoveryDeps, projectId: string, depositId: string): Promise<DepositRow> {
  const found = await loadDeposit(s.db, depositId);
  if (!found || found.projectId !== projectId) {
    throw depositError('NOT_FOUND', 'Deposit not found', undefined, [
      { message: 'is not a deposit of this project', path: at, code: 'not_found' },
    ]);
  }
  const { owner, proven } = (await findAccount(s.db, found.account, projectId))!;
  const { recovered, stage } = await s.db.transaction(async (tx) => {
    // The lock the project's session intents for the account take: an owner's withdrawal racing this has either
    // reserved its funds before they are counted here, or waits for the recovery to commit and counts its refund.
    await lockDepositAccount(tx, projectId, found.account);
    const r = (await loadDeposit(tx, depositId, true))!;
    // An unproven registration's deposit is not recoverable (markRecovering): no funds to check for it.
    if (r.stage === 'rejected' && (proven || r.errorCode !== 'ACCOUNT-2')) await requireFunds(tx, s, r);
    return { recovered: await markRecovering(tx, r.id, owner, depositTiming(s.config)), stage: r.stage };
  });
  if (!recovered) {
    throw depositError('VALIDATION_ERROR', `Deposit ${found.id} is not recoverable (${stage})`, 'RECOVERY-1', [
      { message: 'is not a rejected deposit', path: at, code: 'RECOVERY-1' },
    ]);
  }
  await s.outbox.start(recovered.start).catch(leftToSweeper(s.logger, 'refund start', { depositId: found.id }));
  return recovered.row;
}

/**
 * The refund can only move what the account still holds of the deposit's token on its chain, within the project's
 * deposit credit: funds withdrawn or spent since are refused now, not waited for by a refund that cannot happen. A
 * token the registry does not list has no balance in the ledger; its refund is a transfer made outside.
 */
async function requireFunds(tx: Tx, s: RecoveryDeps, r: DepositRow): Promise<void> {
  const chainId = Number(r.chainId);
  if (!s.registry.token(chainId, r.token)) return;
  const available = (await availableSources(tx, r.account, s.defaultLockTag, s.registry))
    .filter((src) => src.chainId === chainId && src.token.address.toLowerCase() === r.token)
    .reduce((sum, src) => sum + src.available, 0n);
  const credit = await depositCredit(tx, r.projectId, r.account, chainId, r.token);
  const holds = available < credit ? available : credit;
  if (holds >= BigInt(r.amount)) return;
  const message = `Insufficient balance: the account holds ${holds > 0n ? holds : 0n} of the deposit's ${r.amount} for this project to refund`;
  throw depositError('INSUFFICIENT_BALANCE', message, 'BALANCE-1', [{ message, path: at, code: 'BALANCE-1' }]);
}
