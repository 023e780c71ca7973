import { SETTLEMENT_LAYERS } from '../chains/registry';
import { address, bytes32, patterns, safeUint, uint256 } from '../http/schema';
import { PRICE_USD_BOUNDS } from '../intents/pricing';
import { REFUSAL_REASONS } from './types';

const chainId = safeUint(1);
// Up to 18 digits: always inside PostgreSQL's bigint, so a block number can never fail the batch at write time.
const blockNumber = { anyOf: [{ type: 'string', pattern: '^(0|[1-9][0-9]{0,17})$' }, safeUint()] } as const;
const timestamp = { ...safeUint(), description: 'unix seconds' } as const;

export const balanceEvent = {
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
    lockTag: {
      type: 'string',
      pattern: patterns.bytes12,
      description: "defaults to this service's allocator lock tag",
    },
    blockNumber,
    blockTimestamp: {
      ...timestamp,
      maximum: 253402300799, // 9999-12-31 in seconds: a timestamp in milliseconds is refused, not taken as a far future
      description:
        "unix seconds of blockNumber's block (recommended): reservations past their `expires` are released by a snapshot at or after it; a snapshot without it releases none of them",
    },
    unconfirmed: {
      type: 'boolean',
      description:
        "true: blockNumber is above the chain's confirmation depth (a reorg may undo it): shown in portfolios, while no reservation, release or credit rests on it",
    },
  },
  anyOf: [{ required: ['unlocked'] }, { required: ['locked'] }],
} as const;

const base = <const T extends string, const R extends string[], const P>(
  type: T,
  description: string,
  required: R,
  properties: P,
) =>
  ({
    type: 'object',
    description,
    required: ['id', 'type', ...required],
    properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, type: { const: type }, ...properties },
  }) as const;
const nonce = { ...uint256, description: 'the intent id / allocator nonce the on-chain event carries' } as const;
const txHash = bytes32;
const occurrence = {
  ...safeUint(),
  description:
    'identical transfers of one transaction (same account, token, sender and amount) numbered 0, 1, … in log order; default 0',
} as const;

/** One schema per event type (in the order the OpenAPI document lists them); the `type` discriminator picks one. */
const EVENT_SCHEMAS = [
  balanceEvent,
  base('preconfirmation', 'a relayer committed to fill the intent', ['chainId', 'nonce'], { chainId, nonce }),
  base(
    'fill',
    "the intent was filled on its destination chain; `recipient` and `tokens` (recommended) are what the fill paid, checked against the intent's mandate (without them the indexer's word is taken)",
    ['chainId', 'nonce', 'transactionHash', 'timestamp'],
    {
      chainId,
      nonce,
      transactionHash: txHash,
      timestamp,
      recipient: { ...address, description: 'who the fill paid' },
      tokens: {
        type: 'array',
        maxItems: 32,
        description: 'what the fill paid the recipient, per token (entries of one token add up)',
        items: {
          type: 'object',
          required: ['token', 'amount'],
          additionalProperties: false,
          properties: { token: address, amount: uint256 },
        },
      },
    },
  ),
  base(
    'claim',
    'a Claim was emitted on an origin chain (intents and withdrawals); blockNumber (recommended) is its block',
    ['chainId', 'nonce', 'transactionHash', 'timestamp'],
    {
      chainId,
      nonce,
      transactionHash: txHash,
      timestamp,
      blockNumber,
    },
  ),
  base('failure', 'the execution failed', ['chainId', 'nonce', 'reason'], {
    chainId,
    nonce,
    reason: { type: 'string', maxLength: 2000 },
  }),
  base('price', 'USD price of a token symbol', ['symbol', 'usd'], {
    symbol: { type: 'string', minLength: 1, maxLength: 32 },
    usd: { type: 'number', minimum: PRICE_USD_BOUNDS.min, maximum: PRICE_USD_BOUNDS.max },
  }),
  base('gas', 'gas price of a chain', ['chainId', 'gasPrice'], { chainId, gasPrice: uint256 }),
  base(
    'forced-withdrawal',
    "a lock's forced-withdrawal status (ForcedWithdrawalStatusUpdated) at blockNumber (recommended: the highest block wins); the allocator allocates nothing from it unless disabled",
    ['chainId', 'account', 'lockId', 'status'],
    {
      chainId,
      account: address,
      lockId: uint256,
      status: { enum: ['disabled', 'pending', 'enabled'] },
      blockNumber,
    },
  ),
  base(
    'liquidity',
    'what one relayer of a settlement layer can fill on a chain',
    ['chainId', 'settlementLayer', 'token', 'amount'],
    {
      chainId,
      settlementLayer: { enum: [...SETTLEMENT_LAYERS] },
      token: address,
      amount: uint256,
    },
  ),
  base(
    'deposit',
    'a transfer into a registered deposit account (others are ignored); the same transfer of a transaction (chainId, transactionHash, account, token, sender, amount, occurrence) reported again is the same deposit, whatever its logIndex',
    ['chainId', 'transactionHash', 'logIndex', 'token', 'amount', 'sender', 'account', 'blockNumber'],
    {
      chainId,
      transactionHash: txHash,
      logIndex: safeUint(),
      token: address,
      amount: { ...uint256, pattern: '^[1-9][0-9]{0,77}$' },
      sender: address,
      account: address,
      blockNumber,
      fillNonce: {
        ...uint256,
        description:
          "the nonce of the intent whose fill in the same transaction made this transfer, if any: when that intent is the account's own (its deposits' bridge or a withdrawal to itself, made by the deposit processor), the transfer is that intent's arrival, not a deposit",
      },
      occurrence,
    },
  ),
  base(
    'deposit-void',
    'a reported deposit whose transaction a reorg dropped from the chain: the deposit is voided (an unstarted bridge never starts, a started one is cancelled) unless its funds already moved',
    ['chainId', 'transactionHash', 'token', 'amount', 'sender', 'account'],
    {
      chainId,
      transactionHash: txHash,
      token: address,
      amount: { ...uint256, pattern: '^[1-9][0-9]{0,77}$' },
      sender: address,
      account: address,
      occurrence,
    },
  ),
  base(
    'deposit-refund',
    "a transfer out of a deposit account to a deposit's refund recipient (a refund or a recovery)",
    ['chainId', 'transactionHash', 'account', 'token', 'amount', 'recipient'],
    {
      chainId,
      transactionHash: txHash,
      account: address,
      token: address,
      amount: uint256,
      recipient: address,
      blockNumber,
    },
  ),
  base(
    'onramp-order',
    "a fiat on-ramp partner's order update for a registered account, forwarded as the onramp-order webhook",
    ['account', 'orderId', 'status'],
    {
      account: address,
      orderId: { type: 'string', minLength: 1, maxLength: 200 },
      orderUuid: { type: 'string', maxLength: 200 },
      source: { enum: ['onramp', 'exchange'] },
      status: { enum: ['pending', 'processing', 'completed', 'failed'] },
      rawStatus: { type: 'string', maxLength: 200 },
      token: address,
      cryptoAmount: {
        type: 'string',
        pattern: '^[0-9]{1,30}(\\.[0-9]{1,30})?$',
        description: 'decimal, not raw units',
      },
      fiat: {
        type: 'object',
        required: ['currency', 'amount'],
        properties: {
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
          amount: { type: 'string', pattern: '^[0-9]{1,18}(\\.[0-9]{1,18})?$' },
          amountPlusFees: { type: 'string', maxLength: 40 },
          feeUsd: { type: 'string', maxLength: 40 },
        },
      },
      transactionId: { type: 'string', maxLength: 200 },
      method: { type: 'string', maxLength: 100 },
      exchange: { type: 'string', maxLength: 100 },
    },
  ),
] as const;

/** The event schemas by type. */
export const eventSchemas = Object.fromEntries(EVENT_SCHEMAS.map((schema) => [schema.properties.type.const, schema]));

export const ingestBody = {
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
        oneOf: EVENT_SCHEMAS,
      },
    },
  },
} as const;

export const ingestResponse = {
  type: 'object',
  required: ['received', 'applied', 'duplicates'],
  properties: {
    received: { type: 'integer', description: 'distinct event ids in the request' },
    applied: { type: 'integer', description: 'events recorded for the first time' },
    duplicates: { type: 'integer', description: 'events whose id was already recorded (ignored)' },
    refused: {
      type: 'array',
      description:
        'new events that contradict what is stored, neither applied nor recorded (present only when there are any)',
      items: {
        type: 'object',
        required: ['index', 'id', 'type', 'reason', 'message'],
        properties: {
          index: { type: 'integer', description: 'its place in `events`' },
          id: { type: 'string' },
          type: { type: 'string' },
          reason: { enum: [...REFUSAL_REASONS] },
          message: { type: 'string' },
        },
      },
    },
  },
} as const;

export const ingestQuery = {
  type: 'object',
  properties: {
    wait: {
      type: 'boolean',
      default: false,
      description:
        'true: answer only after every lifecycle event of the batch was delivered to the workflow that waits for it',
    },
  },
} as const;
