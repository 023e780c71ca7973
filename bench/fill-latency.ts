/** Fill → status visible: post an intent's fill, then read its status until it shows (one intent at a time). */
import type { Kit, Stack } from './kit';

/** p50 and p99 (ms) over the intents of `nonces` (submitted, not yet filled). */
export async function benchFillLatency(
  kit: Kit,
  stack: Stack,
  nonces: string[],
): Promise<{ p50: number; p99: number }> {
  const fillLatencies: number[] = [];
  await kit.settle();
  for (const [i, id] of nonces.entries()) {
    const t = performance.now();
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
    for (;;) {
      const res = await fetch(`${stack.url}/intent-operation/${id}`, { headers: stack.headers });
      if (((await res.json()) as { status: string }).status === 'FILLED') break;
      await new Promise((r) => setTimeout(r, 2)); // a reader's pace, not a busy loop competing for the 2 cores
    }
    fillLatencies.push(performance.now() - t);
  }
  fillLatencies.sort((a, b) => a - b);
  return { p50: kit.percentile(fillLatencies, 50), p99: kit.percentile(fillLatencies, 99) };
}
