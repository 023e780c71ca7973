import { SETTLEMENT_LAYERS } from '../chains/registry';
import {
  address,
  amount,
  caip2,
  execution,
  hex,
  patterns,
  safeUint,
  tokenRequest,
  uint256,
  uintValue,
} from '../http/schema';

/** 2026-04.blanc wire schemas: CAIP-2 chain ids, integer Unix seconds, the renamed fields (docs/api.md, Versions). */
const tokenList = { type: 'array', items: { type: 'string', minLength: 1 } } as const;
const chainTokens = {
  type: 'object',
  propertyNames: { pattern: caip2.pattern },
  additionalProperties: tokenList,
} as const;
const accessFilter = { chainIds: { type: 'array', items: caip2 }, tokens: tokenList, chainTokens } as const;
const account = {
  type: 'object',
  required: ['address'],
  properties: {
    address,
    accountType: { enum: ['ERC7579', 'EOA', 'GENERIC'], default: 'ERC7579' },
    setupOps: {
      type: 'array',
      items: { type: 'object', required: ['to', 'data'], properties: { to: address, data: hex } },
      default: [],
    },
    delegations: { type: 'object' },
    mockSignatures: {
      type: 'object',
      propertyNames: { pattern: caip2.pattern },
      additionalProperties: hex,
      description: 'per-chain placeholder signatures (accepted; quotes are not simulated)',
    },
  },
} as const;

/** POST /quotes */
export const quoteRequest = {
  type: 'object',
  required: ['destinationChainId', 'tokenRequests', 'account'],
  properties: {
    destinationChainId: caip2,
    tokenRequests: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      items: tokenRequest,
    },
    account,
    recipient: account,
    destinationExecutions: { type: 'array', items: execution, maxItems: 50, default: [] },
    destinationGasLimit: uintValue,
    accountAccessList: {
      type: 'object',
      properties: { ...accessFilter, exclude: { type: 'object', properties: accessFilter } },
    },
    options: {
      type: 'object',
      properties: {
        settlementLayers: { type: 'array', items: { enum: [...SETTLEMENT_LAYERS] } },
        sponsorSettings: {
          type: 'object',
          properties: { gas: { type: 'boolean' }, bridgeFees: { type: 'boolean' }, swapFees: { type: 'boolean' } },
        },
        feeToken: { type: 'string' },
        customDeadline: { ...safeUint(), description: 'fill deadline, Unix seconds' },
      },
      default: {},
    },
  },
} as const;

const usd = { type: 'number' } as const;
const tokenAmount = {
  type: 'object',
  required: ['chainId', 'tokenAddress', 'symbol', 'decimals', 'amount'],
  properties: {
    chainId: caip2,
    tokenAddress: address,
    symbol: { type: 'string' },
    decimals: { type: 'integer' },
    amount: uint256,
  },
} as const;
const typedData = {
  type: 'object',
  required: ['domain', 'types', 'primaryType', 'message'],
  description: 'EIP-712 typed data: sign exactly as served',
} as const;

/** One plan of a quote (an item of the wire's `routes`): a stored, signable intent and what it costs. */
export const plan = {
  type: 'object',
  required: [
    'intentId',
    'expiresAt',
    'fillDeadline',
    'funding',
    'settlementLayers',
    'estimatedFillSeconds',
    'cost',
    'signData',
  ],
  properties: {
    intentId: { type: 'string', pattern: '^\\d+$' },
    expiresAt: { type: 'integer', description: 'Unix seconds: submit before this' },
    fillDeadline: { type: 'integer' },
    funding: {
      enum: ['LOCKED', 'UNLOCKED'],
      description: 'resource-locked funds, or wallet funds pulled with Permit2',
    },
    settlementLayers: { type: 'array', items: { type: 'string' } },
    estimatedFillSeconds: { type: 'integer' },
    cost: {
      type: 'object',
      required: ['input', 'output', 'fees'],
      properties: {
        input: { type: 'array', items: tokenAmount },
        output: { type: 'array', items: tokenAmount },
        fees: {
          type: 'object',
          required: ['total', 'breakdown'],
          properties: {
            total: {
              type: 'object',
              required: ['usd', 'tokens'],
              properties: { usd, tokens: { type: 'array', items: tokenAmount } },
            },
            breakdown: {
              type: 'object',
              required: ['gas', 'settlement', 'protocol', 'sponsored'],
              properties: {
                gas: { type: 'object', required: ['usd'], properties: { usd } },
                settlement: { type: 'object', properties: { usd } },
                protocol: { type: 'object', properties: { usd } },
                sponsored: { type: 'object', properties: { usd } },
              },
            },
          },
        },
      },
    },
    signData: {
      type: 'object',
      required: ['origin', 'destination'],
      properties: { origin: { type: 'array', items: typedData }, destination: typedData },
    },
    tokenRequirements: {
      type: 'object',
      propertyNames: { pattern: caip2.pattern },
      description: 'EOAs only: approvals needed per chain and token',
    },
  },
} as const;
export const quoteResponse = {
  type: 'object',
  required: ['routes'],
  properties: { routes: { type: 'array', minItems: 1, items: plan } },
} as const;

/** POST /intents */
export const submitRequest = {
  type: 'object',
  required: ['intentId', 'signatures'],
  properties: {
    intentId: { type: 'string', pattern: '^\\d{1,80}$' },
    signatures: {
      type: 'object',
      required: ['origin', 'destination'],
      properties: {
        origin: { type: 'array', items: hex, minItems: 1, maxItems: 32 },
        destination: hex,
        targetExecution: { ...hex, description: 'when the route has target executions to authorize' },
        authorizations: {
          type: 'array',
          maxItems: 32,
          description: 'EIP-7702 authorizations of an EOA that delegates',
          items: {
            type: 'object',
            required: ['chainId', 'address', 'nonce', 'yParity', 'r', 's'],
            properties: { chainId: caip2, address, nonce: uintValue, yParity: { enum: [0, 1] }, r: hex, s: hex },
          },
        },
      },
    },
  },
} as const;
export const submitResponse = {
  type: 'object',
  required: ['intentId'],
  properties: { intentId: { type: 'string' } },
} as const;

export const statusParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^\\d{1,80}$' } },
} as const;
export const statusResponse = {
  type: 'object',
  required: ['intentId', 'status', 'destinationChainId', 'accountAddress', 'claims'],
  properties: {
    intentId: { type: 'string' },
    status: {
      enum: ['PENDING', 'FILLED', 'CLAIMED', 'COMPLETED', 'FAILED', 'EXPIRED'],
      description: 'clients handle values added later',
    },
    destinationChainId: caip2,
    accountAddress: address,
    claims: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chainId', 'status'],
        properties: {
          chainId: caip2,
          status: { type: 'string' },
          claimTimestamp: { type: 'integer' },
          claimTransactionHash: hex,
        },
      },
    },
    fillTimestamp: { type: 'integer' },
    fillTransactionHash: hex,
  },
} as const;

/** POST /intents/splits */
export const splitRequest = {
  type: 'object',
  required: ['chainId', 'tokens'],
  properties: {
    chainId: caip2,
    tokens: {
      type: 'object',
      minProperties: 1,
      maxProperties: 20,
      propertyNames: { pattern: patterns.address },
      additionalProperties: amount,
    },
    settlementLayers: { type: 'array', items: { enum: [...SETTLEMENT_LAYERS] } },
  },
} as const;
