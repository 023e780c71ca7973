import type { Db } from '../db/types';
import type { ChainRpc } from '../chains/rpc';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/registry';
import type { DepositSettings } from './config';
import { DomainError } from '../errors';
import type { NonceBlock } from '../ledger/nonces';
import type { Logger } from '../logger';
import type { Outbox } from '../outbox/outbox';
import { createQuote } from '../intents/quote-service';
import { findAccount } from './account-store';
import { depositError } from './errors';
import { ownerSigns, requireSignature, servedChainId } from './request-checks';
import { type WithdrawRequest, withdrawTypedData } from './session-digest';
import { signAndSubmit } from './session-intents';
import { forgetWithdrawalQuote, loadWithdrawal, recordWithdrawal, recordWithdrawalIntent } from './withdrawal-store';
import { leftToSweeper } from '../outbox/left-to-sweeper';

const at = (field: string) => ['body', field];

const balanceError = (message: string) =>
  depositError('INSUFFICIENT_BALANCE', message, 'BALANCE-1', [{ message, path: at('amount'), code: 'BALANCE-1' }]);

/** What a withdrawal uses of the API's services. */
export interface WithdrawDeps {
  db: Db;
  registry: ChainRegistry;
  rpc: ChainRpc;
  config: DepositSettings;
  clock: () => Date;
  outbox: Outbox;
  logger: Logger;
  defaultLockTag: `0x${string}`;
  orchestrator: PrivateKeyAccount;
  nonces: NonceBlock;
  sessionSigner: (projectId: string) => PrivateKeyAccount;
}

/**
 * POST /safe/withdraw: the owner of a managed account signs a withdrawal (until its deadline); the project's session
 * signer carries it out as an intent through the intent core (same chain, to the recipient). One intent per owner
 * nonce: the same request again answers it; another request with a used nonce is refused. A quote whose submit was
 * refused (funds short, or the quote lapsed) is forgotten, so the same signed request may be sent again.
 */
export async function withdraw(
  s: WithdrawDeps,
  projectId: string,
  w: WithdrawRequest,
): Promise<{ intentId: string; status: string }> {
  const account = await findAccount(s.db, w.account, projectId);
  if (!account)
    throw depositError('NOT_FOUND', 'Account not found', 'ACCOUNT-1', [
      { message: 'is not a registered account of this project', path: at('account'), code: 'ACCOUNT-1' },
    ]);
  if (!account.managed)
    throw depositError(
      'VALIDATION_ERROR',
      'Only managed accounts withdraw through the processor; a user-owned account withdraws itself',
      undefined,
      [{ message: 'is not a managed account', path: at('account'), code: 'managed' }],
    );
  const chainId = servedChainId(s.registry, w, ['body'], 'chain');
  if (BigInt(w.deadline) < BigInt(Math.floor(s.clock().getTime() / 1000))) {
    throw depositError('VALIDATION_ERROR', 'The withdrawal deadline has passed', 'WITHDRAW-1', [
      { message: 'is in the past', path: at('deadline'), code: 'WITHDRAW-1' },
    ]);
  }
  const signer = s.sessionSigner(projectId);
  await requireSignature(
    account.owner,
    w.signature,
    withdrawTypedData(w, chainId, signer.address),
    ownerSigns(account.ownerType),
    at('signature'),
    {
      error: "Invalid withdrawal signature: not signed by the account's owner",
      message: "is not the account owner's Withdraw signature",
    },
    s.rpc,
  );

  const request = {
    chain: w.chain,
    token: w.token.toLowerCase(),
    amount: w.amount,
    recipient: w.recipient.toLowerCase(),
  };
  await recordWithdrawal(s.db, account.address, projectId, w.nonce, request);
  const recorded = await loadWithdrawal(s.db, account.address, projectId, w.nonce);
  if (JSON.stringify(recorded.request) !== JSON.stringify(request)) {
    throw depositError('CONFLICT', 'This nonce was used for another withdrawal', undefined, [
      { message: 'was used for another withdrawal of this account', path: at('nonce'), code: 'conflict' },
    ]);
  }
  let intentId = recorded.intentId;
  if (!intentId) {
    const quote = await createQuote(
      s.db,
      {
        destinationChainId: chainId,
        tokenRequests: [{ tokenAddress: w.token, amount: w.amount }],
        account: { address: account.address, accountType: 'ERC7579', setupOps: [] },
        recipient: { address: w.recipient, accountType: 'EOA' },
        destinationExecutions: [],
        accountAccessList: [{ chainId, tokenAddress: w.token }],
        options: {},
      },
      projectId,
      {
        registry: s.registry,
        rpc: s.rpc,
        config: s.config,
        lockTag: s.defaultLockTag,
        orchestrator: s.orchestrator,
        nonces: s.nonces,
      },
    ).catch((e: unknown) => {
      // The intent core's refusal in the deposit processor's words: funds short, or no route.
      if (!(e instanceof DomainError)) throw e;
      throw e.code === 'INSUFFICIENT_BALANCE'
        ? balanceError(e.message)
        : depositError('NO_ROUTE', e.message, 'BRIDGE-6', [
            { message: e.message, path: at('amount'), code: 'BRIDGE-6' },
          ]);
    });
    // The first request to record its quote carries the withdrawal; a concurrent one submits that same quote.
    intentId = await recordWithdrawalIntent(
      s.db,
      account.address,
      projectId,
      w.nonce,
      BigInt(quote.intentOp.nonce).toString(),
    );
  }
  const verify = { compactContract: s.config.intents.compactSigningContract, rpc: s.rpc };
  let submitted: Awaited<ReturnType<typeof signAndSubmit>>;
  try {
    submitted = await signAndSubmit(s.db, s.config, verify, signer, projectId, intentId);
  } catch (e) {
    if (!(e instanceof DomainError) || !(e.code === 'NOT_FOUND' || e.code === 'INSUFFICIENT_BALANCE')) throw e;
    // Not accepted: the nonce is free for this same request again (unless an overlapping request's submit was accepted).
    await forgetWithdrawalQuote(s.db, account.address, projectId, w.nonce, intentId);
    if (e.code === 'INSUFFICIENT_BALANCE') throw balanceError(e.message);
    throw e;
  }
  if (submitted.start)
    await s.outbox.start(submitted.start).catch(leftToSweeper(s.logger, 'lifecycle start', { intentId }));
  return { intentId, status: submitted.status };
}
