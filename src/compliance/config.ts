import { bool, int, oneOf, type NodeEnv } from '../env';

/** Identity verification settings (docs/configuration.md: COMPLIANCE_* and PERSONA_*). */
export interface ComplianceConfig {
  /** which identity provider hosts verification; `none` answers 503 */
  provider: 'sandbox' | 'persona' | 'none';
  /** a switch that answers 503 to new verification calls (e.g. during a provider incident) */
  paused: boolean;
  /** how long a hosted verification link is offered for */
  linkTtlSeconds: number;
  /** a verification pending (waiting for the customer or in review) this long is marked stale and reported */
  pendingTimeoutSeconds: number;
  /** CSP frame-ancestors of the sandbox's hosted page: the origins that may embed it */
  frameAncestors: string;
  /** this API's public base URL, for hosted links and provider callbacks (default: the request's own origin) */
  publicUrl?: string;
  persona: { apiUrl: string; apiKey?: string; templateId?: string; webhookSecret?: string };
}

export function complianceConfig(env: NodeJS.ProcessEnv, nodeEnv: NodeEnv): ComplianceConfig {
  return {
    provider: oneOf(
      env,
      'COMPLIANCE_PROVIDER',
      ['sandbox', 'persona', 'none'] as const,
      nodeEnv === 'production' ? 'none' : 'sandbox',
    ),
    paused: bool(env, 'COMPLIANCE_SESSIONS_PAUSED', false),
    linkTtlSeconds: int(env, 'COMPLIANCE_LINK_TTL_SECONDS', 600, 30, 86_400),
    pendingTimeoutSeconds: int(env, 'COMPLIANCE_PENDING_TIMEOUT_SECONDS', 7 * 86_400, 1, 90 * 86_400),
    frameAncestors: env.COMPLIANCE_FRAME_ANCESTORS || "'self' http://localhost:* http://127.0.0.1:*",
    publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : undefined,
    persona: {
      apiUrl: env.PERSONA_API_URL || 'https://withpersona.com/api/v1',
      apiKey: env.PERSONA_API_KEY || undefined,
      templateId: env.PERSONA_TEMPLATE_ID || undefined,
      webhookSecret: env.PERSONA_WEBHOOK_SECRET || undefined,
    },
  };
}
