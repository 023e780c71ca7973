import { address, safeUint } from '../http/schema';

export const openIntentsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    destinationChainId: { ...safeUint(1), description: 'only intents filled on this chain' },
    token: { ...address, description: 'only intents whose fill pays this token' },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    cursor: { type: 'string', minLength: 1, maxLength: 128, description: "the previous page's nextCursor (opaque)" },
  },
} as const;

/** The stream's filters: the page's, without its cursor (Last-Event-ID resumes) or size. */
export const openIntentsStreamQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    destinationChainId: openIntentsQuery.properties.destinationChainId,
    token: openIntentsQuery.properties.token,
  },
} as const;

const decimal = { type: 'string', pattern: '^(0|[1-9][0-9]*)$' } as const;

/** What a fill must pay, read from the intent's mandate: a fill that pays less, or another recipient, proves nothing. */
const fillRule = {
  type: 'object',
  required: ['chainId', 'recipient', 'tokens', 'fillDeadline'],
  properties: {
    chainId: { type: 'integer', description: 'the destination chain' },
    recipient: { ...address, description: 'who the fill must pay (lowercase)' },
    tokens: {
      type: 'array',
      description: 'each token (lowercase) with at least this amount, in its smallest unit',
      items: {
        type: 'object',
        required: ['token', 'amount'],
        properties: { token: address, amount: decimal },
      },
    },
    fillDeadline: { type: 'integer', description: 'unix seconds: a fill after it is not accepted' },
  },
} as const;

const openIntent = {
  type: 'object',
  required: ['id', 'fill', 'operation', 'signatures', 'cursor'],
  properties: {
    id: { ...decimal, description: 'the intent id (its nonce)' },
    fill: fillRule,
    operation: { description: 'the intent operation as the sponsor signed it (an object)' },
    signatures: { description: "the sponsor's signatures (origin, destination; an object)" },
    cursor: { type: 'string', description: 'the place of this intent in the feed: a cursor that continues after it' },
  },
} as const;

export const openIntentsResponse = {
  type: 'object',
  required: ['intents', 'nextCursor'],
  properties: {
    intents: { type: 'array', items: openIntent },
    nextCursor: {
      type: ['string', 'null'],
      description: "the last intent's cursor (null on an empty page): ask again with it for the intents opened since",
    },
  },
} as const;
