import { address, patterns, Schema, uint256 } from '../http/schema';

const chainId: Schema = { type: 'integer', minimum: 1, maximum: 2 ** 53 - 1 };
const blockNumber: Schema = { anyOf: [{ type: 'string', pattern: '^(0|[1-9][0-9]{0,19})$' }, { type: 'integer', minimum: 0 }] };

export const balanceEvent: Schema = {
  type: 'object',
  description: 'Absolute wallet (unlocked) and resource-lock (locked) balances of an account at a block.',
  required: ['id', 'type', 'chainId', 'account', 'token', 'blockNumber'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    type: { const: 'balance' },
    chainId,
    account: address,
    token: address,
    unlocked: uint256,
    locked: uint256,
    lockTag: { type: 'string', pattern: patterns.bytes12, description: "defaults to this service's allocator lock tag" },
    blockNumber,
  },
  anyOf: [{ required: ['unlocked'] }, { required: ['locked'] }],
};

/** One entry per event type; later features add theirs here and the `type` discriminator picks the schema. */
export const eventSchemas: Record<string, Schema> = { balance: balanceEvent };

export const ingestBody: Schema = {
  type: 'object',
  required: ['events'],
  properties: {
    events: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { enum: Object.keys(eventSchemas) } },
        discriminator: { propertyName: 'type' },
        oneOf: Object.values(eventSchemas),
      },
    },
  },
};

export const ingestResponse: Schema = {
  type: 'object',
  required: ['received', 'applied', 'duplicates'],
  properties: {
    received: { type: 'integer', description: 'distinct event ids in the request' },
    applied: { type: 'integer', description: 'events recorded for the first time' },
    duplicates: { type: 'integer', description: 'events whose id was already recorded (ignored)' },
  },
};
