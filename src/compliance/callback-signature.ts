import { createHmac, timingSafeEqual } from 'node:crypto';
import { CallbackRejected, parseSignatureHeader } from './provider';

/** How far a callback's signed timestamp may be from our clock (replay window), as Stripe and Persona use. */
export const CALLBACK_TOLERANCE_SECONDS = 300;

export const signCallback = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

/**
 * Accepts when any `v1` of a pair with a timestamp inside the window matches (several pairs during a secret rotation),
 * and returns the body parsed: a signed body that is not JSON is the sender's 400.
 */
export function verifySignedCallback(
  secret: string,
  rawBody: string,
  header: string | string[] | undefined,
  now: Date,
): unknown {
  const pairs = parseSignatureHeader(header);
  if (!pairs.length) throw new CallbackRejected('UNAUTHORIZED', 'Missing or malformed signature header');
  const ok = pairs.some(({ t, v1 }) => {
    const ts = Number(t);
    if (!Number.isInteger(ts) || Math.abs(now.getTime() / 1000 - ts) > CALLBACK_TOLERANCE_SECONDS) return false;
    const expected = Buffer.from(signCallback(secret, ts, rawBody), 'hex');
    const given = Buffer.from(v1, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!ok) throw new CallbackRejected('UNAUTHORIZED', 'Invalid callback signature');
  try {
    return JSON.parse(rawBody);
  } catch {
    throw new CallbackRejected('VALIDATION_ERROR', 'Callback body is not JSON');
  }
}
