import type { DataSource } from 'typeorm';
import { applyEvents } from '../src/indexer/apply-events';
import type { IndexerEvent, IngestResult } from '../src/indexer/types';

export interface ActivityDeps { db: DataSource; defaultLockTag: string }

/** Activities get their dependencies injected once per worker process. */
export function createActivities(deps: ActivityDeps) {
  return {
    async applyIndexerEvents(events: IndexerEvent[]): Promise<IngestResult> {
      return deps.db.transaction((tx) => applyEvents(tx, events, deps.defaultLockTag));
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
