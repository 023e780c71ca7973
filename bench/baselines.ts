/**
 * The baselines every request-path figure is compared with, measured in the same round at the same concurrency: the
 * API's authentication in front of a route that does nothing (bench/trivial-server.ts), and a bare workflow start.
 */
import { randomUUID } from 'node:crypto';
import type { Kit, Result, Stack } from './kit';

export async function benchBaselines(kit: Kit, stack: Stack, c: number): Promise<Result[]> {
  return [
    await kit.measure('baseline: authenticated trivial route', c, kit.requests, async () => {
      const res = await fetch(stack.trivialUrl, { headers: stack.headers });
      await res.arrayBuffer();
    }),
    await kit.measure('baseline: bare workflow start', c, kit.requests, async () => {
      await stack.temporalClient.workflow.start('benchNoop', {
        taskQueue: `bench-noop-${c}`,
        workflowId: randomUUID(),
        args: [],
      });
    }),
  ];
}
