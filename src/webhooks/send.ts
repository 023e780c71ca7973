import http from 'node:http';
import https from 'node:https';
import { guardedLookup, TargetPolicy, checkUrl } from './url-policy';

/** How much of a receiver's answer is kept with the attempt. */
export const RESPONSE_BYTES = 1024;

export interface SendResult {
  statusCode?: number;
  latencyMs: number;
  responseBody?: string;
  error?: string;
  retryAfterSeconds?: number;
}

/**
 * One POST to a receiver: no redirects followed (a redirect is a failure, as in Standard Webhooks), the whole
 * exchange bounded by `timeoutMs`, only the first RESPONSE_BYTES of the answer read, and the connection made to the
 * address the SSRF guard checked.
 */
export function post(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  policy: TargetPolicy,
): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const latencyMs = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = checkUrl(rawUrl, policy);
    } catch (e) {
      return resolve({ latencyMs: 0, error: (e as Error).message });
    }
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(r);
    };
    const req = client.request(url, {
      method: 'POST',
      lookup: guardedLookup(policy),
      agent: false, // a fresh connection per attempt: the lookup (and so the SSRF check) runs every time
      headers: {
        'content-type': 'application/json',
        'user-agent': 'intent-orchestrator-webhooks/1',
        ...headers,
        'content-length': Buffer.byteLength(body),
      },
    });
    const timer = setTimeout(
      () => done({ latencyMs: latencyMs(), error: `timed out after ${timeoutMs} ms` }),
      timeoutMs,
    );
    req.on('error', (e) => done({ latencyMs: latencyMs(), error: e.message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const retryAfter = Number(res.headers['retry-after']);
        done({
          statusCode: res.statusCode,
          latencyMs: latencyMs(),
          // PostgreSQL text cannot hold NUL: a binary answer is kept without them.
          responseBody: Buffer.concat(chunks)
            .subarray(0, RESPONSE_BYTES)
            .toString('utf8')
            .replace(/\u0000/g, ''),
          ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: Math.ceil(retryAfter) } : {}),
        });
      };
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        size += c.length;
        if (size >= RESPONSE_BYTES) finish();
      });
      res.on('end', finish);
      res.on('error', finish);
    });
    req.end(body);
  });
}
