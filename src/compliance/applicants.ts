import { setTimeout as delay } from 'node:timers/promises';
import type { Db } from '../db/types';
import type { QueuedStart } from '../outbox/store';
import type { Applicant, ProviderState } from './provider';
import { claimApplicantCreation, findVerification, recordApplicant, releaseClaim, type Currency } from './store';

/**
 * How long a claim to open an applicant lasts: longer than a provider's create-or-resume can take (Persona: a few
 * calls of at most 10 s each), so it lapses only when its holder died.
 */
const CLAIM_SECONDS = 60;

export interface VerificationOutcome {
  id: string;
  state: ProviderState;
  link?: Applicant['link'];
  start?: QueuedStart;
}

/**
 * Create-or-resume of one customer's verification for one currency. Concurrent callers get one applicant: the one
 * that opens it holds a claim row (docs/compliance.md, Concurrency), the others wait for its record without holding
 * a connection, then resume it. No lock or pooled connection is held across the provider call (`open`).
 */
export async function createOrResumeVerification(
  db: Db,
  key: { projectId: string; customerId: string; currency: Currency },
  provider: string,
  open: (applicantId?: string) => Promise<Applicant>,
  pendingTimeoutSeconds: number,
): Promise<VerificationOutcome> {
  const { projectId, customerId, currency } = key;
  const record = async (applicant: Applicant, claimId?: string): Promise<VerificationOutcome> => {
    const recorded = await recordApplicant(
      db,
      projectId,
      customerId,
      currency,
      provider,
      applicant,
      pendingTimeoutSeconds,
      claimId,
    );
    return { ...recorded, state: applicant.state, link: applicant.link };
  };
  for (let pause = 25; ; pause = Math.min(pause * 2, 400)) {
    const existing = await findVerification(db, projectId, customerId, currency);
    // Decided or in review: nothing for the customer to do, and no call to the provider.
    if (existing && existing.status !== 'needs_input') return { id: existing.id, state: existing.status };
    // Resuming an applicant at this provider opens none, so needs no claim.
    if (existing?.provider === provider) return record(await open(existing.applicantId));
    const claimId = await claimApplicantCreation(db, projectId, customerId, currency, CLAIM_SECONDS);
    if (!claimId) {
      await delay(pause); // another caller is opening it: its record ends the wait
      continue;
    }
    let applicant: Applicant;
    try {
      // Recorded by the previous holder between the read above and this claim: resume that one instead.
      const now = await findVerification(db, projectId, customerId, currency);
      if (now && (now.status !== 'needs_input' || now.provider === provider)) {
        await releaseClaim(db, claimId);
        continue;
      }
      applicant = await open();
    } catch (e) {
      await releaseClaim(db, claimId).catch(() => undefined); // the claim lapses after CLAIM_SECONDS anyway
      throw e;
    }
    return record(applicant, claimId);
  }
}
