import { WorkflowNotFoundError } from '@temporalio/client';
import { waitFor } from '../../src/dev/processes';
import { Api, call, killWorkers, startApi, startWorker } from '../support/harness';
import { suiteReceivers, type Behaviour } from '../support/receiver';
import { newProject, subscribe, type Project } from '../support/projects';

/** First attempts come from the worker's claim loop (src/webhooks/claimer.ts); Temporal only runs retries that wait. */
const DP = '/deposit-processor';
let api: Api;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const receiver = suiteReceivers();

const sendTest = async (p: Project) => {
  const res = await call(p, 'POST', `${DP}/webhooks/test`, { body: { type: 'deposit-received' } });
  expect(res.status).toBe(200);
  return res.json.eventId as string;
};
const event = async (p: Project, eventId: string) => (await call(p, 'GET', `${DP}/webhooks/events/${eventId}`)).json;

/** Whether any Temporal workflow ever ran for this event (the round's id before issue 23, or an endpoint's retry id). */
async function anyWorkflow(eventId: string, endpointId: string): Promise<boolean> {
  for (const id of [`webhook-${eventId}-1`, `webhook-${eventId}-1-${endpointId}`]) {
    const found = await api.temporal.workflow.getHandle(id).describe().then(() => true, (e) => {
      if (e instanceof WorkflowNotFoundError) return false;
      throw e;
    });
    if (found) return true;
  }
  return false;
}

test('23.1 a slow endpoint does not hold others: their first attempts are made at once by the claim loop, with no workflow', async () => {
  const slowProject = await newProject(api, 'slow');
  const slow = await receiver(() => 'hang'); // answers after the attempt timeout: as slow as a receiver gets
  await subscribe(slowProject, slow);
  for (let i = 0; i < api.services.config.webhooks.endpointConcurrency + 20; i++) await sendTest(slowProject);
  await waitFor('the slow receiver saturated', async () => slow.open >= api.services.config.webhooks.endpointConcurrency, 10_000);

  const healthyProject = await newProject(api, 'healthy');
  const healthy = await receiver();
  const { id: endpointId } = await subscribe(healthyProject, healthy);
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) ids.push(await sendTest(healthyProject));
  await waitFor('healthy deliveries', async () => ids.every((id) => healthy.accepted.has(id)), 10_000);
  expect(slow.open).toBeGreaterThan(0); // still hanging while the healthy endpoint was served
  expect(slow.maxOpen).toBeLessThanOrEqual(api.services.config.webhooks.endpointConcurrency);
  for (const id of ids) {
    await waitFor(`event ${id} delivered`, async () => (await event(healthyProject, id)).status === 'delivered', 10_000);
    expect(await event(healthyProject, id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await anyWorkflow(id, endpointId)).toBe(false);
  }
});

test('23.2 kill -9 of the worker with deliveries claimed and due: after a restart every event is delivered once per endpoint', async () => {
  const p = await newProject(api, 'claims-durable');
  // Each receiver holds its first request per event open: the worker dies with those attempts claimed and in flight.
  const hangFirst: Behaviour = (_d, nth) => (nth === 1 ? 'hang' : 200);
  const a = await receiver(hangFirst);
  const b = await receiver(hangFirst);
  await subscribe(p, a);
  await subscribe(p, b);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(await sendTest(p));
  await waitFor('attempts in flight', async () => a.open > 0 && b.open > 0, 10_000);
  killWorkers(api.env);
  // Emitted while no worker runs: recorded, claimed by the next worker.
  for (let i = 0; i < 5; i++) ids.push(await sendTest(p));
  startWorker(api.env);
  for (const id of ids) await waitFor(`event ${id} delivered`, async () => (await event(p, id)).status === 'delivered', 60_000);
  for (const r of [a, b]) {
    expect([...r.accepted.keys()].sort()).toEqual([...ids].sort());
    // Once per endpoint: exactly one successful request per event, whatever was repeated after the kill.
    for (const id of ids) expect(r.forId(id).filter((d) => d.answer === 200)).toHaveLength(1);
  }
  for (const id of ids) {
    const record = await event(p, id);
    expect(record.deliveries).toHaveLength(2);
    expect(record.deliveries.every((d: { status: string }) => d.status === 'delivered')).toBe(true);
    expect(record.attemptLog.filter((x: { statusCode: number | null }) => x.statusCode === 200)).toHaveLength(2);
  }
}, 120_000);
