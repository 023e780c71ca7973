import { verifySignedCallback } from './callback-signature';
import {
  Applicant,
  ApplicantRequest,
  CallbackRejected,
  ProviderCallback,
  ProviderFailed,
  ProviderState,
  VerificationProvider,
} from './provider';

export interface PersonaSettings {
  apiUrl: string;
  apiKey: string;
  templateId: string;
  webhookSecret: string;
}

/** Persona inquiry statuses (and decision events) onto ours. `expired` can be resumed, so the customer has work to do. */
export function personaState(status: string): ProviderState {
  switch (status) {
    case 'created':
    case 'pending':
    case 'expired':
      return 'needs_input';
    case 'completed':
    case 'needs_review':
    case 'marked-for-review':
      return 'in_review';
    case 'approved':
      return 'approved';
    case 'failed':
    case 'declined':
      return 'declined';
    default:
      throw new ProviderFailed(`Unknown Persona inquiry status "${status}"`);
  }
}

interface Inquiry {
  id: string;
  attributes: { status: string; 'reference-id'?: string };
}

/**
 * Persona (withpersona.com) behind the provider seam: one inquiry per customer and currency (reference-id = our
 * reference, so a second call resumes instead of opening another), a one-time link per call, and `inquiry.*`
 * webhooks signed with `Persona-Signature: t=…,v1=…` (HMAC-SHA256 of "t.body"). Written from Persona's public API
 * documentation; its mapping and signature checks are unit-tested with payloads of the documented shapes.
 */
export class PersonaProvider implements VerificationProvider {
  readonly name = 'persona' as const;

  constructor(
    private readonly s: PersonaSettings,
    private readonly clock: () => Date,
    private readonly http: typeof fetch = fetch,
    /** the operator's log: a misconfiguration is theirs to fix, and no customer's answer names it */
    private readonly logError: (detail: Record<string, unknown>, message: string) => void = () => undefined,
  ) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.http(`${this.s.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.s.apiKey}`,
        'content-type': 'application/json',
        'persona-version': '2023-01-05',
        'key-inflection': 'kebab',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    }).catch((e: Error) => {
      throw new ProviderFailed(`Persona unreachable: ${e.message}`);
    });
    const json = (await res.json().catch(() => ({}))) as T & { errors?: { title?: string }[] };
    // 401/403 answer our own key (missing, revoked, or without the permission), never a customer: a failure of ours.
    if (res.status === 401 || res.status === 403) {
      this.logError(
        { status: res.status, title: json.errors?.[0]?.title },
        'Persona refused our API key: check PERSONA_API_KEY (and its permissions)',
      );
      throw new ProviderFailed('The verification provider is misconfigured');
    }
    if (!res.ok) throw new ProviderFailed(`Persona answered ${res.status}: ${json.errors?.[0]?.title ?? 'error'}`);
    return json;
  }

  async createOrResume(req: ApplicantRequest): Promise<Applicant> {
    let inquiry = req.applicantId
      ? (await this.call<{ data: Inquiry }>('GET', `/inquiries/${encodeURIComponent(req.applicantId)}`)).data
      : (
          await this.call<{ data: Inquiry[] }>(
            'GET',
            `/inquiries?filter[reference-id]=${encodeURIComponent(req.reference)}&page[size]=1`,
          )
        ).data[0];
    inquiry ??= (
      await this.call<{ data: Inquiry }>('POST', '/inquiries', {
        data: {
          attributes: {
            'inquiry-template-id': this.s.templateId,
            'reference-id': req.reference,
            fields: {
              ...(req.email ? { 'email-address': req.email } : {}),
              ...(req.country ? { 'address-country-code': req.country } : {}),
            },
          },
        },
      })
    ).data;
    const state = personaState(inquiry.attributes.status);
    if (state !== 'needs_input') return { applicantId: inquiry.id, state };
    if (inquiry.attributes.status === 'expired') await this.call('POST', `/inquiries/${inquiry.id}/resume`);
    const link = await this.call<{ meta: { 'one-time-link': string; 'one-time-link-short'?: string } }>(
      'POST',
      `/inquiries/${inquiry.id}/generate-one-time-link`,
    );
    // One-time links live 24 h at Persona; we offer them for as long as Persona documents.
    return {
      applicantId: inquiry.id,
      state,
      link: { url: link.meta['one-time-link'], expiresAt: new Date(this.clock().getTime() + 24 * 3600 * 1000) },
    };
  }

  verifyCallback(rawBody: string, headers: Record<string, string | string[] | undefined>): ProviderCallback {
    const event = (verifySignedCallback(this.s.webhookSecret, rawBody, headers['persona-signature'], this.clock()) ??
      {}) as {
      data?: { id?: string; attributes?: { name?: string; 'created-at'?: string; payload?: { data?: Inquiry } } };
    };
    const a = event.data?.attributes;
    const inquiry = a?.payload?.data;
    const occurredAt = new Date(a?.['created-at'] ?? '');
    if (!event.data?.id || !a?.name?.startsWith('inquiry.') || !inquiry?.id || Number.isNaN(occurredAt.getTime()))
      throw new CallbackRejected('VALIDATION_ERROR', 'Not a Persona inquiry event');
    // The decision events name the outcome; the others carry it in the inquiry's status.
    const byName: Record<string, ProviderState> = {
      'inquiry.approved': 'approved',
      'inquiry.declined': 'declined',
      'inquiry.marked-for-review': 'in_review',
      'inquiry.failed': 'declined',
    };
    let state = byName[a.name];
    try {
      state ??= personaState(inquiry.attributes.status);
    } catch {
      throw new CallbackRejected('VALIDATION_ERROR', `Unknown Persona inquiry status "${inquiry.attributes.status}"`);
    }
    return { eventId: event.data.id, applicantId: inquiry.id, state, occurredAt };
  }
}
