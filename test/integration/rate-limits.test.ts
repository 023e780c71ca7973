import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot, stopProcess } from '../../src/dev/processes';
import { Api, call, ingest, spawnApi, startApi } from '../support/harness';
import { newProject, type Project } from '../support/projects';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const v1: any = require(path.join(sdkDir, 'orchestrator'));
const { createAuthProvider }: any = require(path.join(sdkDir, 'auth/provider'));
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

const ACCOUNT = '0x3333333333333333333333333333333333333333';
let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

async function limit(p: Project, rps: number, burst: number) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'src/main/cli.ts', 'projects', 'limit', p.projectId, String(rps), String(burst)],
    { cwd: projectRoot, env: { ...process.env, ...api.env.env } },
  );
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ projectId: p.projectId, rateLimit: { rps, burst } });
}

/** Sends `n` requests at once; returns the answers and how long the volley took (seconds, rounded up). */
async function volley(n: number, send: (i: number) => Promise<{ status: number; headers: Headers; json: unknown }>) {
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => send(i)));
  return {
    answers,
    seconds: Math.ceil((Date.now() - started) / 1000),
    ok: answers.filter((a) => a.status === 200).length,
  };
}

test("a project over its quota gets 429 with Retry-After and RateLimit headers in each host's error body; indexer and ops are not limited", async () => {
  const p = await newProject(api, 'limited');
  await limit(p, 1, 3); // one request a second, and three more per 10 s
  const { answers, seconds, ok } = await volley(12, () => call(p, 'GET', `/accounts/${ACCOUNT}/portfolio`));
  // Within the volley: 1 a second it spans, plus the burst of 3.
  expect(ok).toBeGreaterThanOrEqual(4);
  expect(ok).toBeLessThanOrEqual(3 + seconds + 1);
  const refused = answers.find((a) => a.status === 429)!;
  expect(refused.json).toEqual({
    message: 'Too Many Requests',
    errors: [{ message: 'Too Many Requests' }],
    traceId: expect.any(String),
  });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  for (const a of answers) {
    expect(a.headers.get('ratelimit-limit')).toBe('1');
    expect(Number(a.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(Number(a.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
  }
  // A volley again: a second gone since the last (a slow machine) gives the project one more request, the burst no more
  // than three in 10 s, so some of six sent at once are refused.
  const deposits = await volley(6, () => call(p, 'GET', '/deposit-processor/webhooks/events'));
  expect(deposits.answers.find((a) => a.status === 429)?.json).toEqual({
    error: 'Too Many Requests',
    traceId: expect.any(String),
  });
  // Not project routes: indexers and ops keep working while the project is over quota.
  for (let i = 0; i < 5; i++)
    expect(
      (
        await ingest(api, [
          {
            id: `rl-${p.projectId}-${i}`,
            type: 'balance',
            chainId: 8453,
            account: ACCOUNT,
            token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
            unlocked: '1',
            blockNumber: String(i + 1),
          },
        ])
      ).status,
    ).toBe(200);
  expect((await fetch(`${api.url}/health`)).status).toBe(200);
  // Another project's quota is its own.
  expect((await call(api, 'GET', `/accounts/${ACCOUNT}/portfolio`)).status).toBe(200);
});

test('@rhinestone/sdk 1.15.0 turns our 429 into RateLimitedError with retryAfter', async () => {
  const p = await newProject(api, 'sdk-limited');
  await limit(p, 1, 0);
  const orchestrator = v1.getOrchestrator(createAuthProvider({ apiKey: p.apiKey }), api.url);
  const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => orchestrator.getPortfolio(ACCOUNT)));
  const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
  expect(rejected.length).toBeGreaterThan(0);
  expect(rejected[0].reason).toBeInstanceOf(v1.RateLimitedError);
  expect(Number(rejected[0].reason.context.retryAfter)).toBeGreaterThanOrEqual(1);
});

/** Two API processes (with `env`), one project at 1 rps + 9 burst: 10 in the first second across both, not 20. */
async function twoProcessesShareOneQuota(env: Record<string, string>) {
  const p = await newProject(api, 'shared');
  await limit(p, 1, 9);
  const started = await Promise.all([0, 1].map(() => spawnApi({ ...api.env.env, ...env })));
  const apis = started.map((a) => a.child);
  const ports = started.map((a) => a.port);
  try {
    const { answers, seconds, ok } = await volley(40, (i) =>
      call({ ...p, url: `http://127.0.0.1:${ports[i % 2]}` }, 'GET', `/accounts/${ACCOUNT}/portfolio`),
    );
    expect(ok).toBeGreaterThanOrEqual(10);
    expect(ok).toBeLessThanOrEqual(9 + seconds + 1);
    expect(ok).toBeLessThan(20);
    // Both processes refused some: neither kept a private count.
    for (const parity of [0, 1])
      expect(answers.filter((a, i) => i % 2 === parity && a.status === 429).length).toBeGreaterThan(0);
  } finally {
    await Promise.all(apis.map((a) => stopProcess(a)));
  }
}

test('two API processes share one quota through PostgreSQL', () => twoProcessesShareOneQuota({}), 90_000);

// This machine kind runs Redis on 127.0.0.1:6379 (REDIS_URL overrides where it lives).
test(
  'two API processes share one quota through Redis when REDIS_URL is set',
  () => twoProcessesShareOneQuota({ REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }),
  90_000,
);
