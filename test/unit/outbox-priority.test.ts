import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
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

test('after a burst of delayed starts, lifecycle events and undelayed starts take the next free slots, and an event does not wait for its own start', async () => {
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
    owners: async () => new Map(),
  });
  const deadline = Date.now() + 3_600_000;
  const tick = () => new Promise((r) => setImmediate(r));

  const burst = Array.from({ length: 60 }, (_, n) => outbox.startSoon(lifecycle(n, deadline), () => undefined));
  await tick();
  expect(calls).toHaveLength(32); // every slot taken by the burst
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
  await tick();
  expect(calls).toHaveLength(32);

  calls.slice(0, 3).forEach((c) => c.answer());
  await tick();
  expect(calls.slice(32).map((c) => `${c.kind} ${c.workflowId}`)).toEqual([
    'start intent-100',
    'signalWithStart intent-59',
    'signalWithStart intent-200',
  ]);

  // Then the rest of the burst, each start's delay counted when it goes.
  for (let answered = 3; answered < calls.length; answered++) {
    calls[answered].answer();
    await tick();
  }
  await Promise.all([...burst, undelayed]);
  expect(await events).toBe(2);
  const delayed = calls.filter((c) => c.kind === 'start' && c.startDelay);
  expect(delayed).toHaveLength(60);
  expect(delayed.every((c) => c.startDelay! <= deadline - Date.now() + 1000 && c.startDelay! > 0)).toBe(true);
});
