import { SETTLEMENT_LAYERS } from '../chains/registry';
import {
  address,
  amount,
  bytes32,
  execution,
  hex,
  patterns,
  safeUint,
  tokenRequest,
  uint256,
  uintValue,
} from '../http/schema';

const account = {
  type: 'object',
  required: ['address'],
  properties: {
    address,
    accountType: { enum: ['ERC7579', 'EOA', 'GENERIC', 'smartAccount'], default: 'ERC7579' },
    setupOps: {
      type: 'array',
      items: { type: 'object', required: ['to', 'data'], properties: { to: address, data: hex } },
      default: [],
    },
    delegations: { type: 'object' },
    emissaryConfig: { type: 'object' },
  },
} as const;
const tokenList = { type: 'array', items: { type: 'string', minLength: 1 } } as const;
const chainIdList = { type: 'array', items: safeUint(1) } as const;
const chainTokens = { type: 'object', additionalProperties: tokenList } as const;
const structuredAccess = {
  type: 'object',
  properties: {
    chainIds: chainIdList,
    tokens: tokenList,
    chainTokens,
    exclude: { type: 'object', properties: { chainIds: chainIdList, tokens: tokenList, chainTokens } },
  },
} as const;
const layers = { type: 'array', items: { enum: [...SETTLEMENT_LAYERS] } } as const;

/** POST /intents/route and /intents/cost: what the published 1.x client sends (extra fields are ignored). */
export const intentInput = {
  type: 'object',
  required: ['destinationChainId', 'tokenRequests', 'account'],
  properties: {
    destinationChainId: safeUint(),
    tokenRequests: {
      type: 'array',
      maxItems: 20,
      items: tokenRequest,
    },
    account,
    recipient: account,
    destinationExecutions: { type: 'array', items: execution, maxItems: 50, default: [] },
    destinationGasUnits: uintValue,
    accountAccessList: {
      anyOf: [
        {
          type: 'array',
          items: {
            type: 'object',
            required: ['chainId', 'tokenAddress'],
            properties: { chainId: safeUint(1), tokenAddress: { type: 'string' } },
          },
        },
        structuredAccess,
      ],
    },
    options: {
      type: 'object',
      properties: {
        topupCompact: { type: 'boolean' },
        settlementLayers: layers,
        sponsorSettings: {
          type: 'object',
          properties: {
            gasSponsored: { type: 'boolean' },
            bridgeFeesSponsored: { type: 'boolean' },
            swapFeesSponsored: { type: 'boolean' },
            protocolFeesSponsored: { type: 'boolean' },
          },
        },
        feeToken: { type: 'string' },
        customDeadline: safeUint(),
      },
      default: {},
    },
  },
} as const;

const pair = { type: 'array', items: uint256, minItems: 2, maxItems: 2 } as const;
const op = {
  type: 'object',
  required: ['vt', 'ops'],
  properties: { vt: hex, ops: { type: 'array', items: execution } },
} as const;
const element = {
  type: 'object',
  required: ['arbiter', 'chainId', 'idsAndAmounts', 'mandate'],
  properties: {
    arbiter: address,
    chainId: uint256,
    idsAndAmounts: { type: 'array', items: pair, minItems: 1 },
    mandate: {
      type: 'object',
      required: [
        'recipient',
        'tokenOut',
        'destinationChainId',
        'fillDeadline',
        'minGas',
        'preClaimOps',
        'destinationOps',
        'qualifier',
      ],
      properties: {
        recipient: address,
        tokenOut: { type: 'array', items: pair },
        destinationChainId: uint256,
        fillDeadline: uint256,
        minGas: uint256,
        preClaimOps: op,
        destinationOps: op,
        qualifier: {
          type: 'object',
          required: ['settlementContext', 'encodedVal'],
          properties: { encodedVal: hex, settlementContext: { type: 'object' } },
        },
      },
    },
  },
} as const;
const signature = {
  anyOf: [
    hex,
    {
      type: 'object',
      required: ['notarizedClaimSig', 'preClaimSig'],
      properties: { notarizedClaimSig: hex, preClaimSig: hex },
    },
  ],
} as const;

/** POST /intent-operations: the quoted operation echoed back with the sponsor's signatures. */
export const submitBody = {
  type: 'object',
  required: ['signedIntentOp'],
  properties: {
    signedIntentOp: {
      type: 'object',
      required: [
        'sponsor',
        'nonce',
        'expires',
        'elements',
        'serverSignature',
        'signedMetadata',
        'originSignatures',
        'destinationSignature',
      ],
      properties: {
        sponsor: address,
        nonce: uint256,
        expires: uint256,
        targetExecutionNonce: uint256,
        elements: { type: 'array', items: element, minItems: 1, maxItems: 32 },
        serverSignature: hex,
        signedMetadata: { type: 'object' },
        originSignatures: { type: 'array', items: signature, minItems: 1, maxItems: 32 },
        destinationSignature: signature,
        targetExecutionSignature: hex,
        options: { type: 'object', properties: { dryRun: { type: 'boolean' } } },
      },
    },
  },
} as const;

export const submitResponse = {
  type: 'object',
  required: ['result'],
  properties: {
    result: {
      type: 'object',
      required: ['id', 'status'],
      properties: { id: { type: 'string', pattern: '^\\d+$' }, status: { type: 'string' } },
    },
  },
} as const;

const nullable = <const S>(schema: S) => ({ anyOf: [schema, { type: 'null' }] }) as const;

/** GET /intent-operation/{id}/claim-authorization: what The Compact's multichainClaim / exogenousClaim take per origin chain. */
export const claimAuthorizationResponse = {
  type: 'object',
  required: ['nonce', 'expires', 'sponsor', 'claimHash', 'witnessTypestring', 'elements'],
  properties: {
    nonce: uint256,
    expires: uint256,
    sponsor: address,
    claimHash: {
      ...nullable(bytes32),
      description:
        'hashStruct of the MultichainCompact with its Mandate witness, the same on every chain (null: no element is claimed through The Compact)',
    },
    witnessTypestring: nullable({ type: 'string' }),
    elements: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chainId', 'fundingMethod', 'allocatorData', 'arbiter', 'fillAttestation'],
        properties: {
          chainId: safeUint(1),
          fundingMethod: { enum: ['COMPACT', 'PERMIT2', 'NO_FUNDING'] },
          compact: address,
          claim: {
            enum: ['multichainClaim', 'exogenousClaim', 'batchMultichainClaim', 'exogenousBatchClaim'],
            description: 'the batch forms for an element that commits more than one lock',
          },
          notarizedChainId: safeUint(1),
          chainIndex: safeUint(),
          witness: bytes32,
          additionalChains: { type: 'array', items: bytes32 },
          sponsorSignature: signature,
          allocatorData: {
            ...nullable(hex),
            description:
              "the allocator's signature for this chain; null: none needed (Permit2), or the chain's reservation was released",
          },
          arbiter: {
            ...address,
            description: "the element's signed arbiter: the only caller The Compact and Permit2 take",
          },
          fillAttestation: {
            ...nullable({
              type: 'object',
              required: ['claimHash', 'fillChainId', 'fillTransaction', 'relayer', 'signature'],
              properties: {
                claimHash: bytes32,
                fillChainId: safeUint(1),
                fillTransaction: bytes32,
                relayer: address,
                signature: hex,
              },
            }),
            description:
              "the service's EIP-712 FillAttestation for the arbiter on this chain (IntentArbiter): null unless the element names the arbiter configured there and the fill is proven",
          },
        },
      },
    },
  },
} as const;

export const statusParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^\\d{1,80}$' } },
} as const;
export const statusQuery = { type: 'object', properties: { full: { type: 'boolean', default: false } } } as const;

export const splitBody = {
  type: 'object',
  required: ['chainId', 'tokens'],
  properties: {
    chainId: safeUint(1),
    tokens: {
      type: 'object',
      minProperties: 1,
      maxProperties: 20,
      propertyNames: { pattern: patterns.address },
      additionalProperties: amount,
    },
    settlementLayers: layers,
  },
} as const;
