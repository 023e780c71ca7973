import type { Db } from '../db/types';
import type { Client } from '@temporalio/client';
import type { OutboxConfig } from '../outbox/config';
import type { IntentConfig } from './config';
import { endedLifecycles } from './transition-store';
import { lifecycleStarts } from './store';
import { intentWorkflowId } from '../../workflows/contracts/intent-lifecycle';
import { bundleWorkflowId } from '../../workflows/contracts/bundle-lifecycle';
import { Outbox, requeue } from '../outbox/outbox';
import type { DeadRow } from '../outbox/store';

/**
 * How long a lifecycle event for a nonce nobody owns yet is kept (seconds): its quote's time-to-live, in which its
 * submit must commit, and the fill window after it. Past that no submit can make it an intent or bundle.
 */
export const ownerWaitSeconds = (config: { intents: IntentConfig }) =>
  config.intents.quoteTtlSeconds + config.intents.fillWindowSeconds;

/** The process's outbox: events awaiting their owner are addressed to the intent or bundle recorded for their nonce. */
export function createOutbox(
  db: Db,
  temporal: Client,
  config: { taskQueue: string; outbox: OutboxConfig; intents: IntentConfig },
): Outbox {
  return new Outbox(db, temporal, config.taskQueue, {
    maxAttempts: config.outbox.maxAttempts,
    maxPendingStarts: config.outbox.maxPendingStarts,
    owners: (nonces) => lifecycleStarts(db, nonces, config.intents.fillGraceSeconds),
  });
}

const OWNER_PREFIXES = [intentWorkflowId(''), bundleWorkflowId('')];

/** The intent or bundle a dead-lettered row would start a lifecycle for: its awaited nonce, or its workflow's id. */
function ownerOf(r: DeadRow): string | undefined {
  if (r.nonce) return r.nonce;
  const id = OWNER_PREFIXES.flatMap((p) => (r.workflowId.startsWith(p) ? [r.workflowId.slice(p.length)] : []))[0];
  return id && /^\d+$/.test(id) ? id : undefined;
}

/**
 * The operator's retry of dead letters (`npm run cli -- outbox retry`). A row for a lifecycle that has ended is
 * refused: once Temporal's retention has purged the closed run, performing it would start a fresh lifecycle for an
 * intent that is final (its transitions are refused by the store all the same, src/intents/store.ts).
 */
export async function retryDeadLetters(db: Db, which: string, config: { intents: IntentConfig }) {
  return requeue(db, which, ownerWaitSeconds(config), async (rows) => {
    const ended = await endedLifecycles(
      db,
      rows.flatMap((r) => ownerOf(r) ?? []),
    );
    return rows.map((r) => {
      const id = ownerOf(r);
      const status = id === undefined ? undefined : ended.get(id);
      return status && `the lifecycle of ${id} has ended (${status}): a retry would start it again`;
    });
  });
}
