/** What bench/run.ts lends every section (bench/quotes.ts, bench/webhooks.ts, ...): how to measure, and the stack. */
import type { Client } from '@temporalio/client';
import type { Db } from '../src/db/types';
import type { Runtime } from '../src/runtime';

export interface Result {
  name: string;
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  cpu?: Record<string, number>;
}

export interface Kit {
  /** `n` calls of `fn` with `concurrency` in flight: throughput and latency percentiles (ms) */
  measure(name: string, concurrency: number, n: number, fn: (i: number) => Promise<void>): Promise<Result>;
  /** median time of `n` sequential calls (ms) */
  median(n: number, fn: (i: number) => Promise<unknown>): Promise<number>;
  /** waits until the machine is quiet */
  settle(): Promise<void>;
  /** CPU time (ms) each watched process, PostgreSQL and the load have used so far */
  cpuSample(): Record<string, number>;
  percentile(sorted: number[], p: number): number;
  /** requests per measurement (--requests) */
  requests: number;
  /** run at the end, in reverse */
  cleanup: (() => Promise<unknown> | void)[];
}

/** The processes under test (bench/stack.ts) and how the sections call the API. */
export interface Stack {
  rt: Runtime;
  db: Db;
  temporalClient: Client;
  /** the API's base URL */
  url: string;
  /** the baseline server's trivial authenticated route */
  trivialUrl: string;
  pids: { api: number; worker: number; temporal: number };
  projectId: string;
  /** an API key's headers (JSON body) */
  headers: Record<string, string>;
  /** the indexer's key header */
  indexer: Record<string, string>;
  /** POST to the API with the API key's headers (and `extra`), failing unless the status is `expect` */
  post(
    p: string,
    body: unknown,
    expect: number,
    extra?: Record<string, string>,
  ): Promise<Record<string, unknown> & { intentOp?: Record<string, unknown> }>;
}

/** Value of a `--name value` argument. */
export const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/** Runs a bench script's main, then its cleanup steps in reverse order whatever happened, and exits. */
export function runBench(main: () => Promise<void>, cleanup: Kit['cleanup']): void {
  main()
    .catch((e) => {
      console.error(e);
      process.exitCode = 1;
    })
    .finally(async () => {
      // Best effort: a failed step must not keep the others from running.
      for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
      process.exit();
    });
}
