/** What bench/run.ts lends the sections that live in their own files (bench/webhooks.ts, bench/analytics.ts). */
export interface Result { name: string; concurrency: number; rps: number; p50: number; p99: number; cpu?: Record<string, number> }

export interface Kit {
  /** `n` calls of `fn` with `concurrency` in flight: throughput and latency percentiles (ms) */
  measure(name: string, concurrency: number, n: number, fn: (i: number) => Promise<void>): Promise<Result>;
  /** waits until the machine is quiet */
  settle(): Promise<void>;
  percentile(sorted: number[], p: number): number;
  /** requests per measurement (--requests) */
  requests: number;
  /** run at the end, in reverse */
  cleanup: (() => Promise<unknown> | void)[];
}

/** Value of a `--name value` argument. */
export const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
