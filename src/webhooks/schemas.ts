import { dateTime, type Schema } from '../http/schema';
import { EVENT_STATUSES, WEBHOOK_TYPES } from './types';

const nullableDateTime: Schema = { anyOf: [dateTime, { type: 'null' }] };
export const webhookType: Schema = { type: 'string', enum: [...WEBHOOK_TYPES] };

export const testBody: Schema = { type: 'object', required: ['type'], additionalProperties: false, properties: { type: webhookType } };
export const testResponse: Schema = { type: 'object', required: ['message', 'eventId'], properties: { message: { type: 'string' }, eventId: { type: 'string' } } };

export const listQuery: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    since: { ...dateTime, description: 'events created at or after this time' },
    type: { type: 'string', minLength: 1, maxLength: 64 },
    status: { type: 'string', enum: [...EVENT_STATUSES] },
    depositId: { type: 'string', minLength: 1, maxLength: 128 },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    cursor: { type: 'string', minLength: 1, maxLength: 64, description: "the previous page's nextCursor (opaque)" },
  },
};

export const eventRecord: Schema = {
  type: 'object',
  required: ['eventId', 'type', 'time', 'status', 'attempts', 'depositId', 'deliveredAt', 'payload'],
  properties: {
    eventId: { type: 'string' },
    type: webhookType,
    time: dateTime,
    status: { type: 'string', enum: [...EVENT_STATUSES] },
    attempts: { type: 'integer' },
    depositId: { type: ['string', 'null'] },
    deliveredAt: nullableDateTime,
    payload: {},
    test: { type: 'boolean', const: true },
  },
};
export const listResponse: Schema = {
  type: 'object',
  required: ['events', 'nextCursor'],
  properties: { events: { type: 'array', items: eventRecord }, nextCursor: { type: ['string', 'null'], description: 'null on the last page' } },
};
export const eventDetail: Schema = {
  ...eventRecord,
  required: [...(eventRecord.required as string[]), 'deliveries', 'attemptLog'],
  properties: {
    ...(eventRecord.properties as Record<string, Schema>),
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['endpointId', 'url', 'status', 'attempts', 'nextAttemptAt', 'deliveredAt', 'lastError'],
        properties: { endpointId: { type: 'string' }, url: { type: 'string' }, status: { type: 'string' }, attempts: { type: 'integer' }, nextAttemptAt: nullableDateTime, deliveredAt: nullableDateTime, lastError: { type: ['string', 'null'] } },
      },
    },
    attemptLog: {
      type: 'array',
      items: {
        type: 'object',
        required: ['endpointId', 'round', 'attempt', 'at', 'statusCode', 'latencyMs', 'response', 'error'],
        properties: {
          endpointId: { type: 'string' }, round: { type: 'integer' }, attempt: { type: 'integer' }, at: dateTime, statusCode: { type: ['integer', 'null'] },
          latencyMs: { type: 'integer' }, response: { type: ['string', 'null'], description: 'the first 1 KiB of the answer' }, error: { type: ['string', 'null'] },
        },
      },
    },
  },
};
export const eventParams: Schema = { type: 'object', required: ['eventId'], properties: { eventId: { type: 'string', minLength: 1, maxLength: 64 } } };
export const resendResponse: Schema = {
  type: 'object',
  required: ['message', 'eventId', 'status', 'attempts'],
  properties: { message: { type: 'string' }, eventId: { type: 'string' }, status: { type: 'string' }, attempts: { type: 'integer' } },
};
export const replayBody: Schema = {
  type: 'object',
  required: ['since'],
  additionalProperties: false,
  properties: { since: { ...dateTime, description: 'failed events created at or after this time' }, until: { ...dateTime, description: 'and before this time (default: now)' } },
};
export const replayResponse: Schema = { type: 'object', required: ['message', 'count'], properties: { message: { type: 'string' }, count: { type: 'integer' } } };

export const endpointBody: Schema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    types: { type: 'array', minItems: 1, uniqueItems: true, items: webhookType, description: 'omit for every type' },
  },
};
export const endpointParams: Schema = { type: 'object', required: ['endpointId'], properties: { endpointId: { type: 'string', format: 'uuid' } } };
export const endpoint: Schema = {
  type: 'object',
  required: ['id', 'url', 'types', 'status', 'disabledAt', 'disabledReason', 'failingSince', 'previousSecretExpiresAt', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    url: { type: 'string' },
    types: { type: ['array', 'null'], items: webhookType },
    status: { type: 'string', enum: ['enabled', 'disabled'] },
    disabledAt: nullableDateTime,
    disabledReason: { type: ['string', 'null'] },
    failingSince: { ...nullableDateTime, description: 'when the current run of failed attempts began' },
    previousSecretExpiresAt: { ...nullableDateTime, description: 'the rotated-out secret signs too until then' },
    createdAt: dateTime,
  },
};
export const endpointWithSecret: Schema = {
  ...endpoint,
  required: [...(endpoint.required as string[]), 'secret'],
  properties: { ...(endpoint.properties as Record<string, Schema>), secret: { type: 'string', pattern: '^whsec_', description: 'shown only here: store it' } },
};
