/**
 * Fill → status visible: post an intent's fill, then read its status until it shows (one intent at a time); and the
 * same right after a burst of submits, read as fast as the reader can.
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Kit, Stack } from './kit';
import { signedQuotes } from './quotes';

/** Submits in a burst, all sent at once (a client or integrator posting a batch of its users' intents). */
export const BURST = 60;

export interface Latency {
  p50: number;
  p99: number;
}

/** Posts the fill of intent `id` (the `i`th fill of the run: its transaction hash) as the indexer does. */
async function postFill(stack: Stack, id: string, i: number): Promise<void> {
  await stack.post(
    '/indexer/events',
    {
      events: [
        {
          id: `bench-fill-${id}`,
          type: 'fill',
          chainId: 42161,
          nonce: id,
          transactionHash: `0x${(i + 1).toString(16).padStart(64, '0')}`,
          timestamp: Math.floor(Date.now() / 1000),
        },
      ],
    },
    200,
    stack.indexer,
  );
}

/** Reads intent `id`'s status until it is FILLED, `pauseMs` between reads (none: as fast as the reader can). */
async function untilFilled(stack: Stack, id: string, pauseMs: number): Promise<void> {
  for (;;) {
    const res = await fetch(`${stack.url}/intent-operation/${id}`, { headers: stack.headers });
    if (((await res.json()) as { status: string }).status === 'FILLED') return;
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
  }
}

let fills = 0;

/** Fill posted → FILLED read, in ms. */
async function fillToVisible(stack: Stack, id: string, pauseMs: number): Promise<number> {
  const t = performance.now();
  await postFill(stack, id, fills++);
  await untilFilled(stack, id, pauseMs);
  return performance.now() - t;
}

const summary = (kit: Kit, latencies: number[]): Latency => {
  latencies.sort((a, b) => a - b);
  return { p50: kit.percentile(latencies, 50), p99: kit.percentile(latencies, 99) };
};

/** p50 and p99 (ms) over the intents of `nonces` (submitted, not yet filled), on a quiet machine. */
export async function benchFillLatency(kit: Kit, stack: Stack, nonces: string[]): Promise<Latency> {
  const latencies: number[] = [];
  await kit.settle();
  // A reader's pace, not a busy loop competing for the 2 cores.
  for (const id of nonces) latencies.push(await fillToVisible(stack, id, 2));
  return summary(kit, latencies);
}

/**
 * Fill → visible right after a burst: each round quotes BURST intents (for the next BURST of `funded`), sends
 * their submits at once and, as soon as they are answered, the fill of an intent submitted earlier
 * (`nonces[round]`, one round each), read in a tight loop. The fill is for an earlier intent, not one of the burst: a
 * fill comes after its solver's transaction is mined, seconds after the submit, while a burst's lifecycle starts take
 * a fraction of a second. Each round starts once the previous burst's starts are done and the machine is quiet.
 */
export async function benchFillAfterBurst(
  kit: Kit,
  stack: Stack,
  nonces: string[],
  funded: PrivateKeyAccount[],
): Promise<Latency> {
  const latencies: number[] = [];
  for (const [round, id] of nonces.entries()) {
    const burst = await signedQuotes(stack, funded.slice(round * BURST, (round + 1) * BURST));
    await untilStarted(stack);
    await kit.settle();
    await Promise.all(burst.map((signedIntentOp) => stack.post('/intent-operations', { signedIntentOp }, 201)));
    latencies.push(await fillToVisible(stack, id, 0));
  }
  await untilStarted(stack);
  return summary(kit, latencies);
}

/** Waits until every queued lifecycle start was performed (the outbox's starts are empty). */
export async function untilStarted(stack: Stack): Promise<void> {
  while (Number((await stack.db.query('SELECT count(*) AS n FROM workflow_outbox'))[0].n) > 0)
    await new Promise((r) => setTimeout(r, 5));
}
