import { DomainError } from '../errors';
import type { ProviderState } from '../../workflows/contracts/verification';

/**
 * The seam between verification and an identity provider. A provider hosts the customer's flow, tells us its
 * decisions by signed callback, and maps its own states onto four (the verification workflow's states, defined in
 * its contract).
 */
export type { ProviderState };
export const PROVIDER_STATES: readonly ProviderState[] = ['needs_input', 'in_review', 'approved', 'declined'];

export interface Applicant {
  applicantId: string;
  state: ProviderState;
  /** a fresh short-lived hosted link, present while the customer has something to do */
  link?: { url: string; expiresAt: Date };
}

export interface ApplicantRequest {
  /** the provider's applicant from an earlier call, to resume */
  applicantId?: string;
  /** our stable reference for the customer and currency (the provider's reference id) */
  reference: string;
  currency: 'EUR' | 'USD';
  email?: string | null;
  country?: string | null;
  /** this API's public base URL (hosted pages and callbacks the sandbox serves live under it) */
  origin: string;
}

export interface ProviderCallback {
  eventId: string;
  applicantId: string;
  state: ProviderState;
  occurredAt: Date;
}

/** The provider will not verify this customer (e.g. an unsupported country): 403. */
export class ProviderRefused extends Error {}
/** The provider rejected the request or failed: 502. */
export class ProviderFailed extends Error {}
/** A callback whose signature (UNAUTHORIZED) or shape (VALIDATION_ERROR) does not check out. */
export class CallbackRejected extends DomainError {
  constructor(code: 'VALIDATION_ERROR' | 'UNAUTHORIZED', message: string) {
    super(code, message);
  }
}

export interface VerificationProvider {
  readonly name: 'sandbox' | 'persona';
  createOrResume(req: ApplicantRequest): Promise<Applicant>;
  /** Checks the callback's signature over the raw body and maps it; throws CallbackRejected. */
  verifyCallback(rawBody: string, headers: Record<string, string | string[] | undefined>): ProviderCallback;
}

/** Stripe/Persona-style signature header: `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, several pairs during a rotation. */
export function parseSignatureHeader(header: string | string[] | undefined): { t: string; v1: string }[] {
  const raw = Array.isArray(header) ? header.join(' ') : (header ?? '');
  return raw
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((pair) => {
      const parts = Object.fromEntries(pair.split(',').map((kv) => kv.split('=') as [string, string]));
      return parts.t && parts.v1 ? [{ t: parts.t, v1: parts.v1 }] : [];
    });
}
