/** How every figure is taken: calls timed under a given concurrency, or one at a time. */
import { cpuSample, settle } from './cpu';
import type { Result } from './kit';

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Runs `n` calls of `fn` with `concurrency` in flight; returns throughput and latency percentiles (ms). */
export async function measure(
  name: string,
  concurrency: number,
  n: number,
  fn: (i: number) => Promise<void>,
): Promise<Result> {
  await settle();
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = cpuSample();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await fn(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuSample();
  latencies.sort((a, b) => a - b);
  const cpu = Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, (cpuAfter[k] - cpuBefore[k]) / n]));
  return { name, concurrency, rps: n / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpu };
}

/** Median time of `n` sequential calls (ms). */
export async function median(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return percentile(
    times.sort((a, b) => a - b),
    50,
  );
}
