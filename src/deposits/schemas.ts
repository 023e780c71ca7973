import { address, amount, bytes32, caip2, dateTime, hex as anyHex, safeUint, uint256 } from '../http/schema';

const hex = { ...anyHex, minLength: 4, maxLength: 20_000 } as const;
const txHash = { ...bytes32, description: 'transaction hash' } as const;
/** A deposit id (bigint in PostgreSQL): up to 18 digits, so never past 2^63 − 1. */
const depositId = { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } as const;
/** A uint256 the owner signs: up to 77 digits, so never past 2^256 − 1. */
const signedUint = { ...uint256, pattern: '^(0|[1-9][0-9]{0,76})$', maxLength: 77 } as const;

const target = {
  type: 'object',
  required: ['chain', 'token'],
  additionalProperties: false,
  properties: {
    chain: { ...caip2, description: 'where deposits are delivered' },
    token: { ...address, description: 'the token delivered on the target chain' },
    recipient: { ...address, description: 'who receives on the target chain (default: the account itself)' },
  },
} as const;
const accountFields = {
  address: { ...address, description: 'the deposit account (a smart account)' },
  owner: { ...address, description: 'who controls the account: signs its sessions, recoveries and withdrawals' },
  ownerType: {
    type: 'string',
    enum: ['EOA', 'smartAccount'],
    default: 'EOA',
    description: 'smart-account owners are verified by ERC-1271/6492 through RPC_URL_<target chain>',
  },
  target,
  requireCompliance: {
    type: 'boolean',
    default: false,
    description: "deposits need an approved verification of the account's compliance customer",
  },
  accountSignature: {
    ...hex,
    description:
      "optional: the account's own EIP-712 RegisterAccount signature for this project's session signer, nonce and deadline; this registration then receives the account's deposits (README: Deposit processor → Trust model)",
  },
  accountNonce: {
    ...signedUint,
    description:
      'with accountSignature: above every nonce the account signed a registration or release with before, for any project (a Unix time in milliseconds will do)',
  },
  accountDeadline: {
    ...signedUint,
    description: 'with accountSignature: Unix seconds after which the signature is refused',
  },
} as const;

export const sessionDetails = {
  type: 'object',
  required: ['hashesAndChainIds', 'signature'],
  additionalProperties: false,
  properties: {
    hashesAndChainIds: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['chainId', 'sessionDigest'],
        additionalProperties: false,
        properties: { chainId: safeUint(1), sessionDigest: bytes32 },
      },
    },
    signature: {
      ...hex,
      description: "the owner's EIP-712 signature over the details (README: Deposit processor → Sessions)",
    },
  },
} as const;

/** `{account: {...}}` with the fields every registration has, plus the kind's own (`required` lists the account's). */
const registrationBody = <const R extends string[], const O>(required: R, own: O) =>
  ({
    type: 'object',
    required: ['account'],
    additionalProperties: false,
    properties: {
      account: {
        type: 'object',
        required,
        additionalProperties: false,
        properties: { ...accountFields, ...own },
        dependencies: {
          accountSignature: ['accountNonce', 'accountDeadline'],
          accountNonce: ['accountSignature'],
          accountDeadline: ['accountSignature'],
        },
      },
    },
  }) as const;

export const setupBody = registrationBody(['address', 'owner', 'target'], {
  sessionDetails: {
    ...sessionDetails,
    description: 'optional: sessions for source chains, as POST /account/{address}/session takes them',
  },
});

export const registerManagedBody = registrationBody(['address', 'owner', 'sessionSigner', 'target'], {
  sessionSigner: {
    ...address,
    description: "the processor's session signer the account enabled on every chain (GET /chains → sessionSigner)",
  },
});

export const accountRecord = {
  type: 'object',
  required: [
    'address',
    'owner',
    'ownerType',
    'managed',
    'sessionSigner',
    'target',
    'requireCompliance',
    'sessionChains',
    'createdAt',
  ],
  properties: {
    address,
    owner: address,
    ownerType: { type: 'string' },
    managed: { type: 'boolean' },
    sessionSigner: address,
    target: {
      type: 'object',
      required: ['chain', 'token', 'recipient'],
      properties: { chain: caip2, token: address, recipient: address },
    },
    requireCompliance: { type: 'boolean' },
    sessionChains: {
      anyOf: [{ const: 'all' }, { type: 'array', items: caip2 }],
      description: '`all` for a managed account, else the chains with a session',
    },
    createdAt: dateTime,
  },
} as const;

export const addressParams = { type: 'object', required: ['address'], properties: { address } } as const;
export const releaseBody = {
  type: 'object',
  required: ['chain', 'sessionSigner', 'nonce', 'deadline', 'signature'],
  additionalProperties: false,
  properties: {
    chain: {
      ...caip2,
      description: "the chain of the signature's domain (where a smart account's ERC-1271 check runs)",
    },
    sessionSigner: {
      ...address,
      description: "the session signer of the project whose hold ends (that project's GET /chains → sessionSigner)",
    },
    nonce: { ...signedUint, description: 'above every nonce the account signed a registration or release with before' },
    deadline: { ...signedUint, description: 'Unix seconds after which the signature is refused' },
    signature: {
      ...hex,
      description: "the account's own EIP-712 ReleaseAccount signature (README: Deposit processor → Trust model)",
    },
  },
} as const;
export const sessionBody = {
  type: 'object',
  required: ['sessionDetails'],
  additionalProperties: false,
  properties: { sessionDetails },
} as const;
export const messageResponse = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
} as const;

export const DEPOSIT_STATUSES = ['processing', 'completed', 'failed', 'refunded'] as const;

export const depositRecord = {
  type: 'object',
  required: [
    'id',
    'chain',
    'txHash',
    'token',
    'amount',
    'sender',
    'account',
    'recipient',
    'targetChain',
    'targetToken',
    'status',
    'stage',
    'sourceTxHash',
    'destinationTxHash',
    'sourceAmount',
    'destinationAmount',
    'errorCode',
    'intentId',
    'attempts',
    'refund',
    'createdAt',
    'completedAt',
  ],
  properties: {
    id: { type: 'string', description: 'the depositId of its webhooks' },
    chain: caip2,
    txHash,
    logIndex: { type: 'integer' },
    token: address,
    amount: uint256,
    sender: address,
    account: address,
    recipient: address,
    targetChain: caip2,
    targetToken: address,
    status: { type: 'string', enum: [...DEPOSIT_STATUSES] },
    stage: {
      type: 'string',
      enum: ['received', 'bridging', 'completed', 'rejected', 'refunding', 'refunded', 'voided'],
      description: 'the lifecycle step (README: Deposit processor → Lifecycle)',
    },
    sourceTxHash: { type: ['string', 'null'], description: "the bridge's claim on the source chain" },
    destinationTxHash: { type: ['string', 'null'], description: "the bridge's fill on the target chain" },
    sourceAmount: { type: ['string', 'null'] },
    destinationAmount: { type: ['string', 'null'] },
    errorCode: { type: ['string', 'null'] },
    intentId: { type: ['string', 'null'], description: 'the current intent (GET /intent-operation/{id})' },
    attempts: { type: 'integer', description: 'intents submitted so far' },
    refund: {
      type: ['object', 'null'],
      properties: {
        recipient: address,
        intentId: { type: ['string', 'null'], description: 'the refund intent (none for a transfer made outside)' },
        transactionHash: { type: ['string', 'null'] },
      },
    },
    createdAt: dateTime,
    completedAt: { type: ['string', 'null'] },
  },
} as const;

export const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    txHash: { ...txHash, description: 'the source transaction hash' },
    account: address,
    status: { type: 'string', enum: [...DEPOSIT_STATUSES] },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    cursor: { ...depositId, description: "the previous page's nextCursor" },
  },
} as const;
export const listResponse = {
  type: 'object',
  required: ['deposits', 'nextCursor'],
  properties: { deposits: { type: 'array', items: depositRecord }, nextCursor: { type: ['string', 'null'] } },
} as const;

export const recoveryBody = {
  type: 'object',
  required: ['depositId'],
  additionalProperties: false,
  properties: { depositId },
} as const;

export const withdrawBody = {
  type: 'object',
  required: ['account', 'chain', 'token', 'amount', 'recipient', 'nonce', 'deadline', 'signature'],
  additionalProperties: false,
  properties: {
    account: { ...address, description: 'the managed account the funds leave' },
    chain: { ...caip2, description: 'where the funds are and are delivered' },
    token: address,
    amount,
    recipient: address,
    nonce: {
      ...signedUint,
      description: "the owner's choice, once per account: the same signed request again answers the same intent",
    },
    deadline: { ...signedUint, description: 'Unix seconds: the signed withdrawal is refused after it (WITHDRAW-1)' },
    signature: { ...hex, description: "the owner's EIP-712 Withdraw signature" },
  },
} as const;
export const withdrawResponse = {
  type: 'object',
  required: ['message', 'intentId', 'status'],
  properties: {
    message: { type: 'string' },
    intentId: { type: 'string', description: 'GET /intent-operation/{id}' },
    status: { type: 'string' },
  },
} as const;
