import { defineSignal } from '@temporalio/workflow';

/** The verification workflow's contract (workflows/verification.ts runs it; src/compliance starts and signals it). */
/** The workflow function's name: what a start sends as its type (workflows/index.ts exports it). */
export const verificationWorkflowType = 'verifyCustomer';
export const verificationWorkflowId = (verificationId: string) => `verification-${verificationId}`;

/** A provider's states, mapped onto four (src/compliance/provider.ts); the workflow returns the final one. */
export type ProviderState = 'needs_input' | 'in_review' | 'approved' | 'declined';

export interface VerificationStart {
  verificationId: string;
  pendingTimeoutSeconds: number;
  status: ProviderState;
}

/** A provider callback, as the callback route records it. */
export interface ProviderUpdate {
  eventId: string;
  state: ProviderState;
  occurredAt: number;
}
export const providerUpdateSignal = defineSignal<[ProviderUpdate]>('providerUpdate');

/** The verification's activities (src/compliance/store.ts records them). */
export interface VerificationActivities {
  recordVerificationStatus(id: string, status: ProviderState, cause: string): Promise<void>;
  markVerificationStale(id: string, cause: string): Promise<void>;
}
