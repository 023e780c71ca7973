import { getAddress } from 'viem';
import { project } from '../http/project';
import { routeGroup, type RouteDef } from '../http/route';
import * as schema from './schemas';
import { recoverDeposit } from './recovery';
import { listDeposits } from './store';
import { presentDeposit } from './presenter';
import { withdraw } from './withdraw';

const depositRoute = routeGroup({ tags: ['deposits'], auth: 'apiKey' });

/** The widget's deposit routes under /deposit-processor (docs/deposit-processor.md, Widget routes). */
export const depositRoutes: RouteDef[] = [
  depositRoute('get', '/deposits', {
    summary: "The project's deposits, newest first: poll one by its source txHash, or list an account's or a status's",
    query: schema.listQuery,
    responses: { 200: { description: '{deposits, nextCursor}', schema: schema.listResponse } },
    async handler(ctx, { query }, s) {
      const { deposits, nextCursor } = await listDeposits(s.db, project(ctx), query);
      return { status: 200, body: { deposits: deposits.map(presentDeposit), nextCursor } };
    },
  }),
  depositRoute('post', '/deposits/recovery', {
    summary:
      "Send a rejected deposit's funds back to the account owner (idempotent; deposit-refunded follows the transfer)",
    body: schema.recoveryBody,
    responses: {
      202: {
        description: 'the deposit, now awaiting its refund transfer to the owner',
        schema: schema.depositRecord,
      },
      400: {
        description:
          'not recoverable (code RECOVERY-1): in progress, completed, refunding to the sender or refunded; the account no longer holds the deposit (BALANCE-1)',
      },
      404: { description: 'no such deposit in this project' },
    },
    async handler(ctx, { body }, s) {
      return { status: 202, body: presentDeposit(await recoverDeposit(s, project(ctx), body.depositId)) };
    },
  }),
  depositRoute('post', '/safe/withdraw', {
    summary: "Withdraw from a managed account on the owner's signature: the session signer carries it out as an intent",
    body: schema.withdrawBody,
    responses: {
      202: {
        description: 'the intent carrying the withdrawal (the same request again: the same intent)',
        schema: schema.withdrawResponse,
      },
      400: {
        description:
          'invalid body or signature; unsupported chain or token (CHAIN-1, TOKEN-1); balance too low (BALANCE-1)',
      },
      404: { description: 'not an account of this project (ACCOUNT-1)' },
      409: { description: 'the nonce was used for another withdrawal' },
    },
    async handler(ctx, { body }, s) {
      const { intentId, status } = await withdraw(s, project(ctx), body);
      return { status: 202, body: { message: 'Withdrawal submitted', intentId, status } };
    },
  }),
  depositRoute('get', '/chains', {
    summary:
      "Where deposits are taken: each supported source chain with its tokens, and the processor's session signer",
    responses: { 200: { description: '{sessionSigner, chains}' } },
    async handler(ctx, _input, s) {
      return {
        status: 200,
        body: {
          sessionSigner: s.sessionSigner(project(ctx)).address,
          chains: s.registry.chains.map((c) => ({
            chain: c.caip2,
            name: c.name,
            testnet: c.testnet,
            deposit: true,
            destination: true,
            depositTokens: c.tokens.map((t) => ({
              symbol: t.symbol,
              address: getAddress(t.address),
              decimals: t.decimals,
            })),
          })),
        },
      };
    },
  }),
];
