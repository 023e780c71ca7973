import fs from 'node:fs';
import { dropDatabase } from '../../src/db/provision';
import { stopProcess } from '../../src/dev/processes';
import type { Handles } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const h = (globalThis as unknown as { __handles?: Handles }).__handles;
  if (!h) return;
  await Promise.all(h.workers.map((worker) => stopProcess(worker)));
  for (const lane of h.lanes) {
    // Workers that suites started to replace a killed one.
    for (const pid of fs.readFileSync(lane.workerPidFile, 'utf8').split('\n').filter(Boolean).map(Number)) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await dropDatabase(lane.adminUrl, lane.database);
  }
  if (h.temporal) await stopProcess(h.temporal);
  await h.postgres?.stop();
  fs.rmSync(h.dataDir, { recursive: true, force: true });
}
