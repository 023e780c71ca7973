import type { DataSource } from 'typeorm';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { lifecycleStarts } from '../intents/store';
import { Outbox } from './outbox';

/**
 * How long a lifecycle event for a nonce nobody owns yet is kept (seconds): its quote's time-to-live, in which its
 * submit must commit, and the fill window after it. Past that no submit can make it an intent or bundle.
 */
export const ownerWaitSeconds = (config: Config) => config.intents.quoteTtlSeconds + config.intents.fillWindowSeconds;

/**
 * The process's outbox: events awaiting their owner are addressed to the intent or bundle recorded for their nonce.
 * `callTimeoutMs`: see OutboxOptions.
 */
export function createOutbox(db: DataSource, temporal: Client, config: Config, callTimeoutMs?: number): Outbox {
  return new Outbox(db, temporal, config.taskQueue, {
    maxAttempts: config.outbox.maxAttempts,
    maxPendingStarts: config.outbox.maxPendingStarts,
    callTimeoutMs,
    owners: (nonces) => lifecycleStarts(db.manager, nonces, config.intents.fillGraceSeconds),
  });
}
