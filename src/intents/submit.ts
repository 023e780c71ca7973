import type { Db } from '../db/types';
import { crashPoint } from '../faults';
import { DomainError } from '../errors';
import type { Outbox } from '../outbox/outbox';
import type { QueuedStart } from '../outbox/store';
import type { IntentStatus } from '../../workflows/intent-state';
import { acceptIntent, SubmitRefused, type SessionCredit } from './store';
import { findQuote } from './quote-store';
import type { IntentOp, SignedIntentOp } from './types';
import { verifySubmission, type VerifyDeps } from './verify';

/** `proofDays`: how long the sponsor's signature proves its account to the project (src/projects/account-store.ts). */
export interface AcceptDeps {
  db: Db;
  verify: VerifyDeps;
  fillGraceSeconds: number;
  proofDays: number;
}

export type Submitted = { id: string; status: IntentStatus | 'VERIFIED'; start?: QueuedStart };

/**
 * The intent core's submit, shared by every version's submit route and the deposit processor. The quote must be the
 * project's and live (or already accepted: a resubmission is answered after the quote's time-to-live); `sign` lays
 * the caller's signatures over the stored operation, and every signature must be the sponsor's (or, with
 * `session`, that of the signer acting for it under a session its owner enabled: then it proves nothing and
 * spends only `credit`, the project's deposit credit). Then the proof, the reservation, the intent and its queued lifecycle
 * start commit together; the caller performs `start` after the commit.
 */
export async function submitSignedIntent(
  deps: AcceptDeps,
  projectId: string,
  id: string,
  sign: (stored: IntentOp) => SignedIntentOp,
  session?: { signer: string; credit: SessionCredit },
): Promise<Submitted> {
  const quote = await findQuote(deps.db, id, projectId);
  if (!quote || (quote.expired && !quote.submitted))
    throw new DomainError('NOT_FOUND', 'Quote expired or not found; request a new route');
  const signed = sign(quote.operation);
  const accountType = String(
    (quote.operation.signedMetadata.account as { accountType?: string })?.accountType ?? 'ERC7579',
  );
  await verifySubmission(signed, quote.operation, accountType, deps.verify, session?.signer);
  if (signed.options?.dryRun) return { id, status: 'VERIFIED' };

  const submission = {
    originSignatures: signed.originSignatures,
    destinationSignature: signed.destinationSignature,
    ...(signed.targetExecutionSignature ? { targetExecutionSignature: signed.targetExecutionSignature } : {}),
    ...(signed.signedAuthorizations ? { signedAuthorizations: signed.signedAuthorizations } : {}),
  };
  try {
    return { id, ...(await acceptIntent(deps.db, id, submission, projectId, deps, session?.credit)) };
  } catch (e) {
    if (!(e instanceof SubmitRefused)) throw e;
    if (e.quoteGone) throw new DomainError('NOT_FOUND', `${e.message}; request a new route`);
    if (e.conflict) throw new DomainError('CONFLICT', e.message);
    if (e.forbidden) throw new DomainError('FORBIDDEN', e.message);
    throw new DomainError('INSUFFICIENT_BALANCE', e.message);
  }
}

export interface SubmitDeps extends AcceptDeps {
  outbox: Outbox;
  /** told before a lifecycle start is performed, and when one is left to the outbox sweeper */
  onStart(id: string): void;
  startDeferred(id: string): (err: unknown) => void;
}

export interface SubmitResult {
  id: string;
  status: string;
  dryRun: boolean;
}

/**
 * A submit request: the core's submit, answered once it has committed; the lifecycle start follows (Outbox.startSoon),
 * and the committed outbox row covers a process that dies before performing it.
 */
export async function submitIntent(
  deps: SubmitDeps,
  projectId: string,
  id: string,
  sign: (stored: IntentOp) => SignedIntentOp,
): Promise<SubmitResult> {
  const { status, start } = await submitSignedIntent(deps, projectId, id, sign);
  if (status === 'VERIFIED') return { id, status, dryRun: true };
  crashPoint('submit-after-commit');
  if (start) {
    deps.onStart(id);
    // Not awaited: the answer goes first, and startSoon never rejects (a failed start is told to startDeferred).
    void deps.outbox.startSoon(start, deps.startDeferred(id));
  }
  return { id, status, dryRun: false };
}
