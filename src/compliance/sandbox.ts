import { createHmac, randomUUID } from 'node:crypto';
import type { Db } from '../db/types';
import { jwtVerify, SignJWT } from 'jose';
import { escape } from '../analytics/report-page';
import { signCallback, verifySignedCallback } from './callback-signature';
import { openSandboxApplicant, sandboxApplicant, sandboxApplicantWithPrefix, setSandboxState } from './sandbox-store';
import {
  Applicant,
  ApplicantRequest,
  CallbackRejected,
  PROVIDER_STATES,
  ProviderCallback,
  ProviderFailed,
  ProviderRefused,
  ProviderState,
  VerificationProvider,
} from './provider';

export type Decision = 'approve' | 'reject' | 'review';

/**
 * Magic values, like a payment sandbox's test cards: a customer from one of these countries is refused (403), and
 * these e-mail addresses make the provider fail (502) or break (500).
 */
export const SANDBOX_TRIGGERS = {
  refusedCountries: ['KP', 'IR'],
  providerError: 'provider-error@sandbox.test',
  internalError: 'internal-error@sandbox.test',
};

const NEXT: Record<ProviderState, Partial<Record<Decision, ProviderState>>> = {
  needs_input: { approve: 'approved', reject: 'declined', review: 'in_review' },
  in_review: { approve: 'approved', reject: 'declined' },
  approved: {},
  declined: {},
};

export class SandboxConflict extends Error {}

/**
 * The sandbox identity provider: a stand-in that ships with the service and is the default outside production. It
 * keeps its applicants in its own table, hosts a plain HTML page where a tester decides (approve, reject, or needs
 * review then approve/reject), and reports each decision by a signed HTTP callback to the same route a real
 * provider calls.
 */
export class SandboxProvider implements VerificationProvider {
  readonly name = 'sandbox' as const;
  private readonly linkKey: Uint8Array;
  private readonly callbackSecret: string;

  constructor(
    private readonly db: Db,
    sessionKey: string,
    private readonly linkTtlSeconds: number,
    private readonly clock: () => Date,
  ) {
    const derive = (label: string) => createHmac('sha256', sessionKey).update(label).digest();
    this.linkKey = derive('sandbox-link');
    this.callbackSecret = derive('sandbox-callback').toString('hex');
  }

  async createOrResume(req: ApplicantRequest): Promise<Applicant> {
    if (req.country && SANDBOX_TRIGGERS.refusedCountries.includes(req.country.toUpperCase()))
      throw new ProviderRefused(`The provider does not verify customers from ${req.country}`);
    if (req.email === SANDBOX_TRIGGERS.providerError) throw new ProviderFailed('The provider rejected the request');
    if (req.email === SANDBOX_TRIGGERS.internalError) throw new Error('sandbox: simulated internal failure');
    const row = await openSandboxApplicant(this.db, `sbx_${randomUUID()}`, req.reference);
    if (row.state !== 'needs_input') return { applicantId: row.id, state: row.state };
    const now = this.clock();
    const expiresAt = new Date(now.getTime() + this.linkTtlSeconds * 1000);
    // A new signed link on every call: never stored, dead after linkTtlSeconds.
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('sandbox-hosted')
      .setSubject(row.id)
      .setJti(randomUUID())
      .setIssuedAt(Math.floor(now.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.linkKey);
    return {
      applicantId: row.id,
      state: row.state,
      link: { url: `${req.origin}/deposit-processor/compliance/sandbox/hosted/${token}`, expiresAt },
    };
  }

  /** The applicant a hosted link is for, or undefined when the link is forged or expired. */
  async applicantOfLink(token: string): Promise<{ id: string; state: ProviderState } | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.linkKey, {
        algorithms: ['HS256'],
        audience: 'sandbox-hosted',
        currentDate: this.clock(),
      });
      return await sandboxApplicant(this.db, payload.sub);
    } catch {
      return undefined;
    }
  }

  /** The applicant, if it was created for this project (references start with the project id). */
  async applicantOfProject(
    projectId: string,
    applicantId: string,
  ): Promise<{ id: string; state: ProviderState } | undefined> {
    return sandboxApplicantWithPrefix(this.db, applicantId, `${projectId}:`);
  }

  /**
   * Applies a tester's decision: the callback is sent first and the sandbox's own state moves only once it was
   * accepted, so the two never disagree.
   */
  async decide(
    applicant: { id: string; state: ProviderState },
    decision: Decision,
    origin: string,
  ): Promise<ProviderState> {
    const next = NEXT[applicant.state][decision];
    if (!next) throw new SandboxConflict(`An applicant ${applicant.state} cannot be moved by "${decision}"`);
    const now = this.clock();
    const body = JSON.stringify({
      id: `sbx_evt_${randomUUID()}`,
      applicantId: applicant.id,
      state: next,
      occurredAt: now.toISOString(),
    });
    const t = Math.floor(now.getTime() / 1000);
    const res = await fetch(`${origin}/deposit-processor/compliance/callbacks/sandbox`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'sandbox-signature': `t=${t},v1=${signCallback(this.callbackSecret, t, body)}`,
      },
      body,
      signal: AbortSignal.timeout(10_000),
    }).catch((e: Error) => ({ ok: false, status: 0, statusText: e.message }));
    if (!res.ok) throw new ProviderFailed(`sandbox callback refused: ${res.status} ${res.statusText}`);
    await setSandboxState(this.db, applicant.id, next);
    return next;
  }

  verifyCallback(rawBody: string, headers: Record<string, string | string[] | undefined>): ProviderCallback {
    const e = (verifySignedCallback(this.callbackSecret, rawBody, headers['sandbox-signature'], this.clock()) ??
      {}) as { id?: unknown; applicantId?: unknown; state?: unknown; occurredAt?: unknown };
    const occurredAt = new Date(String(e.occurredAt));
    if (
      typeof e.id !== 'string' ||
      typeof e.applicantId !== 'string' ||
      !PROVIDER_STATES.includes(e.state as ProviderState) ||
      Number.isNaN(occurredAt.getTime())
    ) {
      throw new CallbackRejected('VALIDATION_ERROR', 'Malformed sandbox callback');
    }
    return { eventId: e.id, applicantId: e.applicantId, state: e.state as ProviderState, occurredAt };
  }
}

/** The hosted page: plain HTML and an inline script, no external assets. */
export function hostedPage(applicant: { id: string; state: ProviderState }): string {
  const choices: [Decision, string][] =
    applicant.state === 'needs_input'
      ? [
          ['approve', 'Approve'],
          ['reject', 'Reject'],
          ['review', 'Needs review'],
        ]
      : applicant.state === 'in_review'
        ? [
            ['approve', 'Approve'],
            ['reject', 'Reject'],
          ]
        : [];
  const buttons = choices
    .map(([d, label]) => `<button type="button" data-decision="${d}">${label}</button>`)
    .join('\n      ');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Sandbox identity verification</title>
  <style>
    body { font-family: system-ui, sans-serif; margin: 2rem; color: #1a1a2e; background: #f6f7fb; }
    main { background: #fff; border-radius: 12px; padding: 1.5rem; max-width: 28rem; box-shadow: 0 1px 4px rgba(0,0,0,.1); }
    button { font-size: 1rem; margin: .25rem .5rem .25rem 0; padding: .5rem 1rem; border-radius: 8px; border: 1px solid #888; cursor: pointer; }
    #result { margin-top: 1rem; font-weight: 600; }
  </style>
</head>
<body>
  <main>
    <h1>Sandbox verification</h1>
    <p>Applicant <code>${escape(applicant.id)}</code> is <strong id="state">${escape(applicant.state.replace('_', ' '))}</strong>.</p>
    <p>This is the sandbox provider: choose the outcome the provider would reach.</p>
    <div>
      ${buttons || '<p>Nothing left to decide.</p>'}
    </div>
    <p id="result" role="status"></p>
  </main>
  <script>
    for (const b of document.querySelectorAll('button[data-decision]')) {
      b.addEventListener('click', async () => {
        document.querySelectorAll('button').forEach((x) => (x.disabled = true));
        const res = await fetch(location.pathname + '/decision', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: b.dataset.decision }) });
        const out = await res.json().catch(() => ({}));
        document.getElementById('result').textContent = res.ok ? 'Decision recorded: ' + out.state.replace('_', ' ') : 'Failed: ' + (out.error || res.status);
      });
    }
  </script>
</body>
</html>`;
}
