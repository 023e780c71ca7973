import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config';
import { Outbox } from '../../src/outbox/outbox';
import type { QueuedStart } from '../../src/outbox/store';

const lifecycle = (n: number, delayUntil?: number): QueuedStart => ({
  workflowId: `intent-${n}`,
  workflowType: 'intentLifecycle',
  args: [],
  searchAttributes: {},
  summary: '',
  ...(delayUntil ? { delayUntil } : {}),
});

test('a burst of delayed starts keeps OUTBOX_DELAYED_STARTS_IN_FLIGHT calls in Temporal, and a lifecycle event goes ahead of the rest, before its own start', async () => {
  // Temporal answers nothing until told: every call is recorded, and held.
  const calls: { kind: string; workflowId: string; startDelay?: number; answer: () => void }[] = [];
  const held = (kind: string) => (_type: string, options: { workflowId: string; startDelay?: number }) =>
    new Promise<void>((resolve) => calls.push({ kind, ...options, answer: resolve }));
  const temporal = {
    workflow: { start: held('start'), signalWithStart: held('signalWithStart') },
    connection: {},
  } as unknown as Client;
  const db = { query: jest.fn(async () => []) } as unknown as DataSource;
  const outbox = new Outbox(db, temporal, 'q', {
    maxAttempts: 10,
    maxPendingStarts: 1000,
    delayedStartsInFlight: 2,
    owners: async () => new Map(),
  });
  const deadline = Date.now() + 3_600_000;

  const burst = Array.from({ length: 60 }, (_, n) => outbox.startSoon(lifecycle(n, deadline), () => undefined));
  const undelayed = outbox.startSoon(lifecycle(100), () => undefined);
  // An event for the burst's last intent (its start still queued) and one for an intent submitted before.
  const events = outbox.deliver(
    [59, 200].map((n) => ({
      id: String(n),
      workflowId: `intent-${n}`,
      signal: 'fill',
      payload: {},
      start: lifecycle(n, deadline),
    })),
  );
  await new Promise((r) => setImmediate(r));

  expect(calls.filter((c) => c.kind === 'start' && c.startDelay)).toHaveLength(2);
  expect(calls.filter((c) => c.kind === 'start' && !c.startDelay).map((c) => c.workflowId)).toEqual(['intent-100']);
  expect(calls.filter((c) => c.kind === 'signalWithStart').map((c) => c.workflowId)).toEqual([
    'intent-59',
    'intent-200',
  ]);

  // As Temporal answers, the next delayed starts go, two at a time, each with its delay counted when it goes.
  for (let answered = 0; answered < 60; answered += 2) {
    const pending = calls.filter((c) => c.kind === 'start' && c.startDelay);
    expect(pending.length).toBe(Math.min(60, answered + 2));
    pending.slice(answered).forEach((c) => c.answer());
    await new Promise((r) => setImmediate(r));
  }
  calls.filter((c) => c.kind !== 'start' || !c.startDelay).forEach((c) => c.answer());
  await Promise.all([...burst, undelayed]);
  expect(await events).toBe(2);
  expect(calls.filter((c) => c.kind === 'start')).toHaveLength(61);
  expect(loadConfig({}).outbox.delayedStartsInFlight).toBe(4);
});
