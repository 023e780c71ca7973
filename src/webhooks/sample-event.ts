import { randomUUID } from 'node:crypto';
import type { Db } from '../db/types';
import { DomainError } from '../errors';
import { emitEvent, receiverCount } from './event-store';
import { samplePayload } from './sample-payloads';
import type { WebhookType } from './types';

/**
 * A sample event of `type`, marked test, for the project's endpoints that take the type (its delivery follows as any
 * event's does); refused when no enabled endpoint takes it. Returns the event's id.
 */
export async function emitSampleEvent(db: Db, projectId: string, type: WebhookType): Promise<string> {
  if (!(await receiverCount(db, projectId, type))) {
    throw new DomainError('VALIDATION_ERROR', `No enabled webhook endpoint takes ${type} events`, {
      reason: 'WEBHOOK_NO_ENDPOINT',
    });
  }
  const { depositId, payload } = samplePayload(type);
  const emitted = await db.transaction((tx) =>
    emitEvent(tx, { projectId, type, idempotencyKey: `test:${randomUUID()}`, depositId, payload, test: true }),
  );
  return emitted.eventId;
}
