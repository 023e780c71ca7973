import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { requestWithdrawal } from '../../workflows/withdrawal';
import { badRequest } from '../http/errors';
import { stringifyWithBigInts } from '../http/json';
import { defineRoute } from '../http/route';
import { address, patterns, safeUint, Schema } from '../http/schema';
import type { Services } from '../http/services';
import type { Allocation, WithdrawalRequest } from './allocate';

const amount: Schema = { anyOf: [{ type: 'string', pattern: patterns.uint256 }, safeUint()] };
const lockTag: Schema = { type: 'string', pattern: patterns.bytes12, description: "optional: a lock tag of this allocator (default: /health's lockTag)" };
const uint = { type: 'integer', description: 'exact integer literal (up to 256 bits): parse with a big-number-aware JSON parser' };

const single: Schema = {
  type: 'object',
  required: ['account', 'chainId', 'tokenAddress', 'amount', 'recipient'],
  properties: { account: address, chainId: safeUint(1), tokenAddress: address, amount, recipient: address, lockTag },
};
const batch: Schema = {
  type: 'object',
  required: ['account', 'chainId', 'transfers'],
  properties: {
    account: address,
    chainId: safeUint(1),
    transfers: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { type: 'object', required: ['recipient', 'tokenAddress', 'amount'], properties: { recipient: address, tokenAddress: address, amount, lockTag } },
    },
  },
};
const portions: Schema = { type: 'array', items: { type: 'object', required: ['claimant', 'amount'], properties: { claimant: uint, amount: uint } } };
const allocatorData: Schema = { type: 'string', pattern: '^0x[a-fA-F0-9]*$' };
const singleResponse: Schema = {
  type: 'object',
  required: ['allocatorData', 'transferDetails'],
  properties: { allocatorData, transferDetails: { type: 'object', required: ['id', 'nonce', 'expires', 'recipients'], properties: { id: uint, nonce: uint, expires: uint, recipients: portions } } },
};
const batchResponse: Schema = {
  type: 'object',
  required: ['allocatorData', 'batchTransferDetails'],
  properties: {
    allocatorData,
    batchTransferDetails: {
      type: 'object',
      required: ['nonce', 'expires', 'transfers'],
      properties: { nonce: uint, expires: uint, transfers: { type: 'array', items: { type: 'object', required: ['id', 'portions'], properties: { id: uint, portions } } } },
    },
  },
};

const big = (p: { claimant: string; amount: string }) => ({ claimant: BigInt(p.claimant), amount: BigInt(p.amount) });

/** The allocation as The Compact's allocatedTransfer / allocatedBatchTransfer take it, 256-bit values unrounded. */
function present(kind: 'single' | 'batch', a: Allocation): string {
  if (kind === 'single') {
    const [t] = a.transfers;
    return stringifyWithBigInts({ allocatorData: a.allocatorData, transferDetails: { id: BigInt(t.id), nonce: BigInt(a.nonce), expires: BigInt(a.expires), recipients: t.portions.map(big) } });
  }
  return stringifyWithBigInts({
    allocatorData: a.allocatorData,
    batchTransferDetails: { nonce: BigInt(a.nonce), expires: BigInt(a.expires), transfers: a.transfers.map((t) => ({ id: BigInt(t.id), portions: t.portions.map(big) })) },
  });
}

async function allocate(ctx: Context, s: Services, req: WithdrawalRequest) {
  s.metrics.workflowStarts.inc({ workflow: 'requestWithdrawal' });
  const outcome = await s.temporal.workflow.execute(requestWithdrawal, { workflowId: `withdrawal-request-${randomUUID()}`, taskQueue: s.config.taskQueue, args: [req, ctx.state.projectId] });
  if (!outcome.ok) throw badRequest(outcome.message);
  ctx.type = 'application/json';
  return { status: 200, body: present(req.kind, outcome.value) };
}

type SingleBody = { account: string; chainId: number; tokenAddress: string; amount: string | number; recipient: string; lockTag?: string };
type BatchBody = { account: string; chainId: number; transfers: { recipient: string; tokenAddress: string; amount: string | number; lockTag?: string }[] };

export const withdrawalRoutes = [
  defineRoute<SingleBody, unknown, unknown>({
    method: 'post',
    path: '/withdrawals',
    summary: 'Allocator-signed withdrawal from a resource lock (an allocated transfer to a recipient)',
    tags: ['withdrawals'],
    auth: 'apiKey',
    body: single,
    responses: { 200: { description: 'call allocatedTransfer with these details from the account', schema: singleResponse } },
    handler: (ctx, { body }, s) =>
      allocate(ctx, s, { kind: 'single', account: body.account, chainId: body.chainId, transfers: [{ recipient: body.recipient, tokenAddress: body.tokenAddress, amount: String(body.amount), lockTag: body.lockTag }] }),
  }),
  defineRoute<BatchBody, unknown, unknown>({
    method: 'post',
    path: '/batch-withdrawals',
    summary: 'Allocator-signed batch withdrawal (several tokens and recipients on one chain)',
    tags: ['withdrawals'],
    auth: 'apiKey',
    body: batch,
    responses: { 200: { description: 'call allocatedBatchTransfer with these details from the account', schema: batchResponse } },
    handler: (ctx, { body }, s) =>
      allocate(ctx, s, { kind: 'batch', account: body.account, chainId: body.chainId, transfers: body.transfers.map((t) => ({ ...t, amount: String(t.amount) })) }),
  }),
];
