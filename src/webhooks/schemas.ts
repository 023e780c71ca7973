import { dateTime } from '../http/schema';
import { EVENT_STATUSES, WEBHOOK_TYPES } from './types';

const nullableDateTime = { anyOf: [dateTime, { type: 'null' }] } as const;
export const webhookType = { type: 'string', enum: [...WEBHOOK_TYPES] } as const;

export const testBody = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: { type: webhookType },
} as const;
export const testResponse = {
  type: 'object',
  required: ['message', 'eventId'],
  properties: { message: { type: 'string' }, eventId: { type: 'string' } },
} as const;

export const listQuery = {
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
} as const;

export const eventRecord = {
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
} as const;
export const listResponse = {
  type: 'object',
  required: ['events', 'nextCursor'],
  properties: {
    events: { type: 'array', items: eventRecord },
    nextCursor: { type: ['string', 'null'], description: 'null on the last page' },
  },
} as const;
export const eventDetail = {
  ...eventRecord,
  required: [...eventRecord.required, 'deliveries', 'attemptLog'],
  properties: {
    ...eventRecord.properties,
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['endpointId', 'url', 'status', 'attempts', 'nextAttemptAt', 'deliveredAt', 'lastError'],
        properties: {
          endpointId: { type: 'string' },
          url: { type: 'string' },
          status: { type: 'string' },
          attempts: { type: 'integer' },
          nextAttemptAt: nullableDateTime,
          deliveredAt: nullableDateTime,
          lastError: { type: ['string', 'null'] },
        },
      },
    },
    attemptLog: {
      type: 'array',
      items: {
        type: 'object',
        required: ['endpointId', 'round', 'attempt', 'at', 'statusCode', 'latencyMs', 'response', 'error'],
        properties: {
          endpointId: { type: 'string' },
          round: { type: 'integer' },
          attempt: { type: 'integer' },
          at: dateTime,
          statusCode: { type: ['integer', 'null'] },
          latencyMs: { type: 'integer' },
          response: { type: ['string', 'null'], description: 'the first 1 KiB of the answer' },
          error: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;
export const eventParams = {
  type: 'object',
  required: ['eventId'],
  properties: { eventId: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;
export const resendResponse = {
  type: 'object',
  required: ['message', 'eventId', 'status', 'attempts'],
  properties: {
    message: { type: 'string' },
    eventId: { type: 'string' },
    status: { type: 'string' },
    attempts: { type: 'integer' },
  },
} as const;
export const replayBody = {
  type: 'object',
  required: ['since'],
  additionalProperties: false,
  properties: {
    since: { ...dateTime, description: 'failed events created at or after this time' },
    until: { ...dateTime, description: 'and before this time (default: now)' },
  },
} as const;
export const replayResponse = {
  type: 'object',
  required: ['message', 'count'],
  properties: { message: { type: 'string' }, count: { type: 'integer' } },
} as const;

export const endpointBody = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048 },
    types: { type: 'array', minItems: 1, uniqueItems: true, items: webhookType, description: 'omit for every type' },
  },
} as const;
export const endpointParams = {
  type: 'object',
  required: ['endpointId'],
  properties: { endpointId: { type: 'string', format: 'uuid' } },
} as const;
export const endpoint = {
  type: 'object',
  required: [
    'id',
    'url',
    'types',
    'status',
    'disabledAt',
    'disabledReason',
    'failingSince',
    'previousSecretExpiresAt',
    'createdAt',
  ],
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
} as const;
export const endpointWithSecret = {
  ...endpoint,
  required: [...endpoint.required, 'secret'],
  properties: {
    ...endpoint.properties,
    secret: { type: 'string', pattern: '^whsec_', description: 'shown only here: store it' },
  },
} as const;
