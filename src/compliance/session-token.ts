import { randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

/** The spec's bearer lifetime. */
export const SESSION_TTL_SECONDS = 15 * 60;
const ISSUER = 'intent-orchestrator';
const AUDIENCE = 'compliance-session';
const ALG = 'HS256'; // pinned: a token naming another algorithm (or none) is refused

export interface SessionClaims {
  sessionId: string;
  projectId: string;
  customerId: string;
  account: string | null;
  expiresAt: Date;
}

const key = (secret: string) => new TextEncoder().encode(secret);

export async function mintSession(
  secret: string,
  c: Omit<SessionClaims, 'sessionId' | 'expiresAt'>,
  now: Date,
): Promise<{ token: string } & SessionClaims> {
  const sessionId = randomUUID();
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + SESSION_TTL_SECONDS;
  const token = await new SignJWT({ pid: c.projectId, ...(c.account ? { acct: c.account } : {}) })
    .setProtectedHeader({ alg: ALG, typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(c.customerId)
    .setJti(sessionId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key(secret));
  return { token, sessionId, ...c, expiresAt: new Date(exp * 1000) };
}

export class SessionInvalid extends Error {}

/** Signature, algorithm, issuer, audience and expiry against the injected clock. */
export async function readSession(secret: string, token: string, now: Date): Promise<SessionClaims> {
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      algorithms: [ALG],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
      requiredClaims: ['sub', 'jti', 'exp', 'pid'],
    });
    return {
      sessionId: payload.jti!,
      projectId: String(payload.pid),
      customerId: payload.sub!,
      account: typeof payload.acct === 'string' ? payload.acct : null,
      expiresAt: new Date(payload.exp! * 1000),
    };
  } catch (e) {
    throw new SessionInvalid(e instanceof errors.JWTExpired ? 'Session expired' : 'Missing or malformed bearer token');
  }
}
