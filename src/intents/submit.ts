import type { DataSource } from 'typeorm';
import { ApiError, badRequest } from '../http/errors';
import type { QueuedStart } from '../outbox/outbox';
import { acceptIntent, SubmitRefused } from './store';
import type { IntentStatus } from '../../workflows/intent-state';
import type { IntentOp, SignedIntentOp } from './types';
import { verifySubmission, type VerifyDeps } from './verify';

export interface SubmitDeps { db: DataSource; verify: VerifyDeps; fillGraceSeconds: number }

export type Submitted = { id: string; status: IntentStatus | 'VERIFIED'; start?: QueuedStart };

/**
 * The intent core's submit, shared by POST /intent-operations and the deposit processor: the stored quote of this
 * project, the signatures checked against it (`signer`: a session signer acting for the sponsor, recovered locally),
 * then the intent accepted with its lifecycle start queued. The caller performs `start` after the commit.
 */
export async function submitSignedIntent(deps: SubmitDeps, projectId: string, signed: SignedIntentOp, signer?: string): Promise<Submitted> {
  const id = BigInt(signed.nonce).toString();
  const [quote]: { operation: IntentOp; expired: boolean; submitted: boolean }[] = await deps.db.query(
    // Quotes and intents belong to the project whose key asked for them; other projects see nothing.
    'SELECT q.operation, q.expires_at < now() AS expired, i.id IS NOT NULL AS submitted FROM quotes q LEFT JOIN intents i ON i.id = q.nonce WHERE q.nonce = $1 AND q.project_id = $2',
    [id, projectId],
  );
  // A resubmission of an accepted intent is answered even after the quote's time-to-live.
  if (!quote || (quote.expired && !quote.submitted)) throw new ApiError(404, 'Quote expired or not found; request a new route');
  const accountType = String((quote.operation.signedMetadata.account as { accountType?: string })?.accountType ?? 'ERC7579');
  await verifySubmission(signed, quote.operation, accountType, deps.verify, signer);
  if (signed.options?.dryRun) return { id, status: 'VERIFIED' };

  const submission = {
    originSignatures: signed.originSignatures,
    destinationSignature: signed.destinationSignature,
    ...(signed.targetExecutionSignature ? { targetExecutionSignature: signed.targetExecutionSignature } : {}),
    ...(signed.signedAuthorizations ? { signedAuthorizations: signed.signedAuthorizations } : {}),
  };
  try {
    return { id, ...(await acceptIntent(deps.db, id, submission, projectId, deps.fillGraceSeconds)) };
  } catch (e) {
    if (e instanceof SubmitRefused) throw e.quoteGone ? new ApiError(404, `${e.message}; request a new route`) : badRequest(e.message);
    throw e;
  }
}
