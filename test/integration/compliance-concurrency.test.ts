import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createDataSource } from '../../src/db/data-source';
import { stopProcess } from '../../src/dev/processes';
import { createApp } from '../../src/api/app';
import { Api, call, spawnApi, startApi } from '../support/harness';
import { newProject } from '../support/projects';

const DP = '/deposit-processor';
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

test('21.5 50 concurrent verifications for 10 customers through two API processes: all complete, one applicant per customer, the pools stay usable', async () => {
  const p = await newProject(api, 'compliance-concurrency');
  const tokens: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await call(p, 'POST', `${DP}/compliance/sessions`, { body: { customerId: `cus-${i}` } });
    tokens.push(res.json.token);
  }
  // Two real API processes with the default pool (10 connections each), 25 requests apiece, 5 per customer.
  const started = await Promise.all([0, 1].map(() => spawnApi(api.env.env)));
  const apis = started.map((a) => a.child);
  const ports = started.map((a) => a.port);
  try {
    const verify = (port: number, token: string) =>
      fetch(`http://127.0.0.1:${port}${DP}/compliance/verification`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ currency: 'EUR' }),
        // A frozen pool never answers: fail with a message rather than at the test's timeout.
        signal: AbortSignal.timeout(45_000),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as { id: string; status: string } }));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => verify(ports[i % 2], tokens[i % 10])));

    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    // Every caller for a customer got the same verification, and the customers got 10 different ones.
    const byCustomer = tokens.map((_, c) => new Set(answers.filter((_, i) => i % 10 === c).map((a) => a.body.id)));
    expect(byCustomer.map((ids) => ids.size)).toEqual(Array(10).fill(1));
    expect(new Set(byCustomer.flatMap((ids) => [...ids])).size).toBe(10);
    // One applicant per customer, at the provider and in our records.
    const rows: { customerId: string; applicantId: string }[] = await api.db.query(
      'SELECT customer_id AS "customerId", applicant_id AS "applicantId" FROM verifications WHERE project_id = $1',
      [p.projectId],
    );
    expect(rows.map((r) => r.customerId).sort()).toEqual(tokens.map((_, i) => `cus-${i}`).sort());
    const applicants: { n: number }[] = await api.db.query(
      'SELECT count(*)::int AS n FROM sandbox_applicants WHERE reference LIKE $1',
      [`${p.projectId}:%`],
    );
    expect(applicants[0].n).toBe(10);
    // Both processes still reach the database afterwards.
    for (const port of ports) expect((await verify(port, tokens[0])).status).toBe(200);
  } finally {
    // SIGKILL: a process whose pool froze never finishes its graceful stop.
    await Promise.all(apis.map((a) => stopProcess(a, 'SIGKILL')));
  }
}, 120_000);

test('21.5 a request that finds no pooled connection within the acquire timeout answers 503 with retry-after, not 500 or a hang', async () => {
  const p = await newProject(api, 'pool-timeout');
  const { token } = (await call(p, 'POST', `${DP}/compliance/sessions`, { body: { customerId: 'cus-busy' } })).json;
  // A pool of one whose connection is taken, with a short acquire timeout (configuration, not a sleep).
  const tiny = await createDataSource(api.env.databaseUrl, 1, { acquireTimeoutMs: 300 }).initialize();
  const holder = tiny.createQueryRunner();
  await holder.connect();
  const server = createApp({ ...api.services, db: tiny }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${DP}/compliance/verification`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ currency: 'EUR' }),
    });
    expect([res.status, res.headers.get('retry-after'), ((await res.json()) as { error: string }).error]).toEqual([
      503,
      '5',
      'Service Unavailable',
    ]);
  } finally {
    server.close();
    await holder.release();
    await tiny.destroy();
  }
});
