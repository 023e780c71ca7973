import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks secret format (at least 24 bytes). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The Standard Webhooks headers for one attempt. Every live secret signs (`v1,<sig>` entries separated by a space),
 * so a receiver still holding the rotated-out secret verifies during the overlap.
 */
export function signedHeaders(eventId: string, at: Date, body: string, secrets: string[]): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(eventId, at, body)).join(' '),
  };
}
