/**
 * Submits: POST /intent-operations of signed quotes, measured as answered (at their commit) and until every
 * lifecycle they start was started (the outbox empty), which the submit throughput target uses.
 */
import type { SignedIntentOp } from '../src/intents/types';
import { untilStarted } from './fill-latency';
import type { Kit, Result, Stack } from './kit';

/** Submits measured until their lifecycles were started, not only answered (no latencies of their own). */
export const STARTED = 'POST /intent-operations until every lifecycle started';

export async function benchSubmits(kit: Kit, stack: Stack, c: number, signed: SignedIntentOp[]): Promise<Result[]> {
  const { requests } = kit;
  await kit.settle(); // here, so that the time and CPU through the starts begin with the submits
  const submitting = performance.now();
  const cpuSubmitting = kit.cpuSample();
  const answered = await kit.measure('POST /intent-operations (submit)', c, requests, async (i) => {
    await stack.post('/intent-operations', { signedIntentOp: signed[i] }, 201);
  });
  // A submit answers at its commit and its lifecycle start follows: wait until every start was performed (the
  // outbox is empty), so the next measurement does not pay for these, and report submits per second through it.
  await untilStarted(stack);
  const cpuStarted = kit.cpuSample();
  const cpu = Object.fromEntries(
    Object.keys(cpuStarted).map((k) => [k, (cpuStarted[k] - cpuSubmitting[k]) / requests]),
  );
  return [
    answered,
    {
      name: STARTED,
      concurrency: c,
      rps: requests / ((performance.now() - submitting) / 1000),
      p50: NaN,
      p99: NaN,
      cpu,
    },
  ];
}
