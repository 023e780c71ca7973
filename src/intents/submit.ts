import type { DataSource } from 'typeorm';
import { crashPoint } from '../faults';
import { ApiError } from '../http/errors';
import type { Outbox } from '../outbox/outbox';
import { acceptIntent, findQuote, SubmitRefused } from './store';
import type { IntentOp, SignedIntentOp } from './types';
import { verifySubmission } from './verify';

export interface SubmitDeps {
  db: DataSource;
  outbox: Outbox;
  orchestratorAddress: string;
  compactContract: string;
  fillGraceSeconds: number;
  /** told when a lifecycle start is left to the outbox sweeper */
  onStartDeferred(err: unknown, id: string): void;
}

export interface SubmitResult { id: string; status: string; dryRun: boolean; started: boolean }

/**
 * The submit every version shares. The quote must be the project's and live (or already accepted: a resubmission is
 * answered after the quote's time-to-live); `sign` lays the caller's signatures over the stored operation, and every
 * signature must be the sponsor's. Then the reservation, the intent and its queued lifecycle start commit together;
 * the start is performed right after, else by the outbox sweeper.
 */
export async function submitIntent(deps: SubmitDeps, projectId: string, id: string, sign: (stored: IntentOp) => SignedIntentOp): Promise<SubmitResult> {
  const quote = await findQuote(deps.db, id, projectId);
  if (!quote || (quote.expired && !quote.submitted)) throw new ApiError(404, 'Quote expired or not found; request a new route', { code: 'NOT_FOUND' });
  const signed = sign(quote.operation);
  const accountType = String((quote.operation.signedMetadata.account as { accountType?: string })?.accountType ?? 'ERC7579');
  await verifySubmission(signed, quote.operation, accountType, { orchestratorAddress: deps.orchestratorAddress, compactContract: deps.compactContract, env: process.env });
  if (signed.options?.dryRun) return { id, status: 'VERIFIED', dryRun: true, started: false };

  const submission = {
    originSignatures: signed.originSignatures,
    destinationSignature: signed.destinationSignature,
    ...(signed.targetExecutionSignature ? { targetExecutionSignature: signed.targetExecutionSignature } : {}),
    ...(signed.signedAuthorizations ? { signedAuthorizations: signed.signedAuthorizations } : {}),
  };
  let accepted;
  try {
    accepted = await acceptIntent(deps.db, id, submission, projectId, deps.fillGraceSeconds);
  } catch (e) {
    if (e instanceof SubmitRefused) {
      if (e.quoteGone) throw new ApiError(404, `${e.message}; request a new route`, { code: 'NOT_FOUND' });
      if (e.conflict) throw new ApiError(409, e.message, { code: 'CONFLICT' });
      throw new ApiError(400, e.message, { errors: [{ message: e.message }], code: 'INSUFFICIENT_BALANCE' });
    }
    throw e;
  }
  crashPoint('submit-after-commit');
  if (accepted.start) await deps.outbox.start(accepted.start).catch((err) => deps.onStartDeferred(err, id));
  return { id, status: accepted.status, dryRun: false, started: !!accepted.start };
}
