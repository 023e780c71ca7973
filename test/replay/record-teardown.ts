import { spawnSync } from 'node:child_process';
import type { Handles } from '../support/global-setup';
import globalTeardown from '../support/global-teardown';

/**
 * record.ts's jest global teardown: exports the histories (export-histories.ts, in its own process: the Temporal
 * protobuf types do not survive jest's module registry) before the usual teardown stops the dev server.
 */
export default async function recordTeardown(): Promise<void> {
  const h = (globalThis as unknown as { __handles?: Handles }).__handles;
  try {
    if (h) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', `${__dirname}/export-histories.ts`], {
        stdio: 'inherit',
        env: { ...process.env, TEMPORAL_ADDRESS: h.lanes[0].temporalAddress },
      });
      if (run.status !== 0) throw new Error(`export-histories exited with ${run.status}`);
    }
  } finally {
    await globalTeardown();
  }
}
