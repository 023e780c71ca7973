import { createHmac, randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

/** Ingest tokens live minutes; report links a little longer (someone opens them from a message). */
export const INGEST_TOKEN_SECONDS = 15 * 60;
export const REPORT_LINK_SECONDS = 60 * 60;

type Purpose = 'analytics-ingest' | 'analytics-report';

/** Each purpose signs with its own key derived from the service's session key, so one never passes for the other. */
const key = (secret: string, purpose: Purpose) => createHmac('sha256', secret).update(purpose).digest();

export async function mintToken(
  secret: string,
  purpose: Purpose,
  claims: Record<string, string>,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const expiresAt = new Date(
    (iat + (purpose === 'analytics-ingest' ? INGEST_TOKEN_SECONDS : REPORT_LINK_SECONDS)) * 1000,
  );
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(purpose)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key(secret, purpose));
  return { token, expiresAt };
}

/** The token's claims, or undefined when it is forged, of another purpose, or expired. */
export async function readToken(
  secret: string,
  purpose: Purpose,
  token: string,
  now: Date,
): Promise<Record<string, unknown> | undefined> {
  try {
    return (
      await jwtVerify(token, key(secret, purpose), { algorithms: ['HS256'], audience: purpose, currentDate: now })
    ).payload;
  } catch {
    return undefined;
  }
}
