import { address, bytes32, execution, hex, safeUint, tokenRequest, uint256, uintValue } from '../http/schema';

/** What the published 0.5.4 client sends (clients.md 5.1); unknown keys are ignored, as viem leaves some in userOps. */
const pair = { type: 'array', items: uintValue, minItems: 2, maxItems: 2 } as const;
const tokenTransfers = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  items: tokenRequest,
} as const;
const accessList = {
  type: 'array',
  items: {
    type: 'object',
    required: ['chainId', 'tokenAddress'],
    properties: { chainId: safeUint(1), tokenAddress: { type: 'string' } },
  },
} as const;
const userOpGas = {
  type: 'object',
  properties: { callGasLimit: uintValue, verificationGasLimit: uintValue, preVerificationGas: uintValue },
} as const;

export const userParams = { type: 'object', required: ['userAddress'], properties: { userAddress: address } } as const;
export const bundleParams = { type: 'object', required: ['bundleId'], properties: { bundleId: uint256 } } as const;

/** POST /accounts/{userAddress}/bundles/cost (`OrderFeeInput`). */
export const costBody = {
  type: 'object',
  required: ['targetChainId', 'tokenTransfers'],
  properties: {
    targetChainId: safeUint(),
    tokenTransfers,
    targetGasUnits: uintValue,
    userOp: userOpGas,
    accountAccessList: accessList,
  },
} as const;

/** POST /accounts/{userAddress}/bundles/path (`MetaIntent`): target executions, or a userOp on the session path. */
export const pathBody = {
  type: 'object',
  required: ['targetChainId', 'tokenTransfers', 'targetAccount'],
  properties: {
    ...costBody.properties,
    targetAccount: address,
    targetExecutions: { type: 'array', items: execution, maxItems: 50, default: [] },
    userOp: {
      type: 'object',
      properties: { ...userOpGas.properties, sender: address, nonce: uintValue, callData: hex },
    },
    omniLock: { type: 'boolean', default: true },
    lockMode: { enum: ['HOOK', 'COMPACT'] },
  },
} as const;

const witness = {
  type: 'object',
  required: ['recipient', 'tokenOut', 'depositId', 'targetChain', 'fillDeadline', 'execs', 'userOpHash', 'maxFeeBps'],
  properties: {
    recipient: address,
    tokenOut: { type: 'array', items: pair, maxItems: 20 },
    depositId: uintValue,
    targetChain: uintValue,
    fillDeadline: safeUint(),
    execs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['to', 'value', 'data'],
        properties: { to: address, value: uintValue, data: hex },
      },
      maxItems: 60,
    },
    userOpHash: bytes32,
    maxFeeBps: safeUint(),
  },
} as const;
const segment = {
  type: 'object',
  required: ['arbiter', 'chainId', 'idsAndAmounts', 'witness'],
  properties: {
    arbiter: address,
    chainId: uintValue,
    idsAndAmounts: { type: 'array', items: pair, minItems: 1, maxItems: 20 },
    witness,
  },
} as const;
const signedOrderBundle = {
  type: 'object',
  required: ['sponsor', 'nonce', 'expires', 'segments', 'originSignatures', 'targetSignature'],
  properties: {
    sponsor: address,
    nonce: uintValue,
    expires: uintValue,
    segments: { type: 'array', items: segment, minItems: 1, maxItems: 20 },
    originSignatures: { type: 'array', items: hex, minItems: 1, maxItems: 20 },
    targetSignature: hex,
  },
} as const;

/** Gas fields packed into 128 bits of a v0.7 userOp (below 10^38, so always below 2^128). */
const uint128 = { anyOf: [{ type: 'string', pattern: '^(0|[1-9][0-9]{0,37})$' }, safeUint()] } as const;

/** The session path's userOp: viem's prepared v0.7 UserOperation as the 0.5.4 client sends it (bigints as strings). */
const userOperation = {
  type: 'object',
  required: [
    'sender',
    'nonce',
    'callData',
    'callGasLimit',
    'verificationGasLimit',
    'preVerificationGas',
    'maxFeePerGas',
    'maxPriorityFeePerGas',
    'signature',
  ],
  properties: {
    sender: address,
    nonce: uintValue,
    factory: address,
    factoryData: hex,
    callData: hex,
    callGasLimit: uint128,
    verificationGasLimit: uint128,
    preVerificationGas: uintValue,
    maxFeePerGas: uint128,
    maxPriorityFeePerGas: uint128,
    paymaster: address,
    paymasterVerificationGasLimit: uint128,
    paymasterPostOpGasLimit: uint128,
    paymasterData: hex,
    signature: hex,
  },
} as const;

/** POST /bundles: `initCode` (factory ‖ factoryData) accompanies an account that may not be deployed yet. */
export const submitBody = {
  type: 'object',
  required: ['bundles'],
  properties: {
    bundles: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: {
        type: 'object',
        required: ['signedOrderBundle'],
        properties: {
          signedOrderBundle,
          initCode: { type: 'string', pattern: '^0x([0-9a-fA-F]{2}){20,}$' },
          userOp: userOperation,
        },
      },
    },
  },
} as const;

export const eventsQuery = {
  type: 'object',
  properties: {
    count: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
  },
} as const;

/** POST /bundles/{bundleId}/events: a relayer's word that it has sent the fill. */
export const bundleEventBody = {
  type: 'object',
  required: ['type', 'chainId', 'txHash'],
  properties: { type: { enum: ['FillPreconfirmation'] }, chainId: safeUint(1), txHash: bytes32 },
} as const;
