import type { Context } from 'koa';
import { crashPoint } from '../faults';
import { inputProblemError } from '../http/errors';
import { stringifyWithBigInts } from '../http/json';
import { project } from '../http/project';
import { routeGroup } from '../http/route';
import { address, type Infer, numberAmount, patterns, safeUint } from '../http/schema';
import type { Services } from '../http/services';
import { allocateWithdrawal, IDEMPOTENCY_KEY_TTL_HOURS } from './allocate';
import type { Allocation } from './store';
import { MAX_DEADLINE_SECONDS, type WithdrawalRequest } from './sponsor-signature';
import { ALPS } from '../http/versions';
import { leftToSweeper } from '../outbox/left-to-sweeper';
import { withdrawalWorkflowType } from '../../workflows/contracts/withdrawal';

const lockTag = {
  type: 'string',
  pattern: patterns.bytes12,
  description: "optional: a lock tag of this allocator (default: /health's lockTag)",
} as const;
/** Optional proof that the account itself asks for this withdrawal (docs/trust-model.md, who may withdraw). */
const sponsorSignature = {
  type: 'string',
  pattern: '^0x[0-9a-fA-F]{130}$',
  description: "the account's EIP-712 signature of WithdrawalRequest(account, transfers, deadline); send with deadline",
} as const;
const deadline = {
  ...safeUint(1),
  description: `unix seconds the signature is valid until (at most ${MAX_DEADLINE_SECONDS} s ahead)`,
} as const;
const signed = { sponsorSignature, deadline } as const;
const uint = {
  type: 'integer',
  description: 'exact integer literal (up to 256 bits): parse with a big-number-aware JSON parser',
} as const;

const single = {
  type: 'object',
  required: ['account', 'chainId', 'tokenAddress', 'amount', 'recipient'],
  properties: {
    account: address,
    chainId: safeUint(1),
    tokenAddress: address,
    amount: numberAmount,
    recipient: address,
    lockTag,
    ...signed,
  },
  dependencies: { sponsorSignature: ['deadline'], deadline: ['sponsorSignature'] },
} as const;
const batch = {
  type: 'object',
  required: ['account', 'chainId', 'transfers'],
  properties: {
    account: address,
    chainId: safeUint(1),
    transfers: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: {
        type: 'object',
        required: ['recipient', 'tokenAddress', 'amount'],
        properties: { recipient: address, tokenAddress: address, amount: numberAmount, lockTag },
      },
    },
    ...signed,
  },
  dependencies: { sponsorSignature: ['deadline'], deadline: ['sponsorSignature'] },
} as const;
const portions = {
  type: 'array',
  items: { type: 'object', required: ['claimant', 'amount'], properties: { claimant: uint, amount: uint } },
} as const;
const allocatorData = { type: 'string', pattern: '^0x[a-fA-F0-9]*$' } as const;
const singleResponse = {
  type: 'object',
  required: ['allocatorData', 'transferDetails'],
  properties: {
    allocatorData,
    transferDetails: {
      type: 'object',
      required: ['id', 'nonce', 'expires', 'recipients'],
      properties: { id: uint, nonce: uint, expires: uint, recipients: portions },
    },
  },
} as const;
const batchResponse = {
  type: 'object',
  required: ['allocatorData', 'batchTransferDetails'],
  properties: {
    allocatorData,
    batchTransferDetails: {
      type: 'object',
      required: ['nonce', 'expires', 'transfers'],
      properties: {
        nonce: uint,
        expires: uint,
        transfers: {
          type: 'array',
          items: { type: 'object', required: ['id', 'portions'], properties: { id: uint, portions } },
        },
      },
    },
  },
} as const;

/** Shared by both routes' OpenAPI responses. */
const refusals = {
  403: { description: 'the account has not authorized this project' },
  422: { description: `the Idempotency-Key was used with another request within ${IDEMPOTENCY_KEY_TTL_HOURS} hours` },
  429: { description: 'too many outstanding authorizations for the account with this project' },
};

const big = (p: { claimant: string; amount: string }) => ({ claimant: BigInt(p.claimant), amount: BigInt(p.amount) });

/** The allocation as The Compact's allocatedTransfer / allocatedBatchTransfer take it, 256-bit values unrounded. */
function present(kind: 'single' | 'batch', a: Allocation): string {
  if (kind === 'single') {
    const [t] = a.transfers;
    return stringifyWithBigInts({
      allocatorData: a.allocatorData,
      transferDetails: {
        id: BigInt(t.id),
        nonce: BigInt(a.nonce),
        expires: BigInt(a.expires),
        recipients: t.portions.map(big),
      },
    });
  }
  return stringifyWithBigInts({
    allocatorData: a.allocatorData,
    batchTransferDetails: {
      nonce: BigInt(a.nonce),
      expires: BigInt(a.expires),
      transfers: a.transfers.map((t) => ({ id: BigInt(t.id), portions: t.portions.map(big) })),
    },
  });
}

/**
 * An optional `Idempotency-Key` header, as Stripe takes it: up to 255 visible ASCII characters, scoped to the project.
 * Sent but empty (Node trims a whitespace-only value to empty) is refused, not read as absent: the client meant a
 * key, and without one each retry would allocate again.
 */
function idempotencyKey(ctx: Context): string | undefined {
  const key = ctx.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw inputProblemError('headers', {
      path: ['Idempotency-Key'],
      keyword: 'pattern',
      message: 'must be 1 to 255 visible ASCII characters',
    });
  }
  return key;
}

/**
 * Allocated in this process (checks, nonce, reservation, signature, record, queued hold in one transaction). A retry
 * with the same Idempotency-Key answers the same allocation and queues nothing (docs/allocator.md, Idempotency-Key).
 */
async function allocate(ctx: Context, s: Services, req: WithdrawalRequest) {
  const allocated = await allocateWithdrawal(
    s.db,
    req,
    project(ctx),
    {
      registry: s.registry,
      config: s.config,
      lockTag: s.defaultLockTag,
      allocator: s.allocator,
      projectAddress: s.sessionSigner(project(ctx)).address,
    },
    idempotencyKey(ctx),
  );
  crashPoint('withdrawal-after-commit');
  const { start } = allocated;
  if (start) {
    s.metrics.workflowStarts.inc({ workflow: withdrawalWorkflowType });
    await s.outbox.start(start).catch(leftToSweeper(s.logger, 'withdrawal hold', { nonce: allocated.value.nonce }));
  }
  ctx.type = 'application/json';
  return { status: 200, body: present(req.kind, allocated.value) };
}

const authorization = (b: Infer<typeof single> | Infer<typeof batch>) =>
  b.sponsorSignature ? { authorization: { signature: b.sponsorSignature, deadline: b.deadline! } } : {};

// The resource-lock surface has no equivalent in 2026-04.blanc.
const withdrawalRoute = routeGroup({ tags: ['withdrawals'], auth: 'apiKey', versions: [ALPS] });

export const withdrawalRoutes = [
  withdrawalRoute('post', '/withdrawals', {
    summary: 'Allocator-signed withdrawal from a resource lock (an allocated transfer to a recipient)',
    body: single,
    responses: {
      200: { description: 'call allocatedTransfer with these details from the account', schema: singleResponse },
      ...refusals,
    },
    handler: (ctx, { body }, s) =>
      allocate(ctx, s, {
        kind: 'single',
        account: body.account,
        chainId: body.chainId,
        transfers: [
          {
            recipient: body.recipient,
            tokenAddress: body.tokenAddress,
            amount: String(body.amount),
            lockTag: body.lockTag,
          },
        ],
        ...authorization(body),
      }),
  }),
  withdrawalRoute('post', '/batch-withdrawals', {
    summary: 'Allocator-signed batch withdrawal (several tokens and recipients on one chain)',
    body: batch,
    responses: {
      200: { description: 'call allocatedBatchTransfer with these details from the account', schema: batchResponse },
      ...refusals,
    },
    handler: (ctx, { body }, s) =>
      allocate(ctx, s, {
        kind: 'batch',
        account: body.account,
        chainId: body.chainId,
        transfers: body.transfers.map((t) => ({ ...t, amount: String(t.amount) })),
        ...authorization(body),
      }),
  }),
];
