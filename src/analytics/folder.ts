import type { Db } from '../db/types';
import { foldPending, projectsToFold } from './rollup-store';

/** How often a worker folds the queued batches: what a report finds left to fold is about this much ingest. */
const FOLD_EVERY_MS = 1000;

interface Log {
  warn(obj: object, msg: string): void;
}

/**
 * The workers' fold loop (src/analytics/rollup-store.ts): every second, each project's queued batches folded into the
 * funnel's rollup, skipping a project another process is folding. It holds nothing a restart would lose: a fold
 * commits or leaves its batches queued.
 */
export class FunnelFolder {
  private stopped = false;
  private wake?: () => void;
  private loop?: Promise<void>;

  constructor(
    private readonly db: Db,
    private readonly log: Log,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        for (const projectId of await projectsToFold(this.db)) {
          if (this.stopped) break;
          await foldPending(this.db, projectId, { wait: false });
        }
      } catch (err) {
        this.log.warn({ err }, 'funnel fold failed; retried in a second');
      }
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FOLD_EVERY_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
}
