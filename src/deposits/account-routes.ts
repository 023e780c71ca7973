import type { Context } from 'koa';
import { isAddressEqual } from 'viem';
import { project } from '../http/project';
import { routeGroup, type RouteDef } from '../http/route';
import type { Infer } from '../http/schema';
import type { Services } from '../http/services';
import { type DepositAccount, findAccount, presentAccount } from './account-store';
import { enablesSessionSigner, reservedAddress } from './account-proof';
import { addAccountSessions, recordRegistration, releaseAccount } from './registrations';
import { depositError, type Detail } from './errors';
import { ownerSigns, requireSignature, servedChain, servedChainId } from './request-checks';
import * as schema from './schemas';
import {
  type AccountProof,
  registerAccountTypedData,
  releaseAccountTypedData,
  type SessionDetails,
  sessionTypedData,
} from './session-digest';

type SetupAccount = Infer<typeof schema.setupBody>['account'];
type ManagedAccount = Infer<typeof schema.registerManagedBody>['account'];
/** The account of either registration: each kind's own field is absent from the other's. */
type AccountBody = (SetupAccount & { sessionSigner?: undefined }) | (ManagedAccount & { sessionDetails?: undefined });

const at = (...path: (string | number)[]) => ['body', ...path];

/**
 * Session details are the owner's: the chains must be supported and the signature must be the owner's over the
 * documented digest (EOA owners recovered locally, smart-account owners through ERC-1271/6492 like intents).
 */
async function checkSessions(
  s: Services,
  projectId: string,
  account: Pick<DepositAccount, 'address' | 'owner' | 'ownerType' | 'targetChainId'>,
  details: SessionDetails,
  path: (string | number)[],
): Promise<void> {
  const unsupported: Detail[] = details.hashesAndChainIds.flatMap((h, i) =>
    s.registry.chain(h.chainId)
      ? []
      : [
          {
            message: `chain ${h.chainId} is not supported`,
            path: [...path, 'hashesAndChainIds', String(i), 'chainId'],
            code: 'CHAIN-1',
          },
        ],
  );
  if (unsupported.length) throw depositError('UNSUPPORTED_CHAIN', unsupported[0].message, 'CHAIN-1', unsupported);
  const typedData = sessionTypedData(
    account.address,
    account.targetChainId,
    details,
    s.sessionSigner(projectId).address,
  );
  await requireSignature(
    account.owner,
    details.signature,
    typedData,
    ownerSigns(account.ownerType),
    [...path, 'signature'],
    {
      error: "Invalid session signature: not signed by the account's owner",
      message: "is not the account owner's signature over the session details",
    },
    s.rpc,
  );
}

/** An account signature's deadline still ahead (the services' clock, as /safe/withdraw reads it), else 400 naming the field. */
function requireLive(s: Services, deadline: string, path: (string | number)[]): void {
  if (BigInt(deadline) < BigInt(Math.floor(s.clock().getTime() / 1000))) {
    throw depositError('VALIDATION_ERROR', "The account signature's deadline has passed", undefined, [
      { message: 'is in the past', path, code: 'deadline' },
    ]);
  }
}

/**
 * The account's own signature for the project's session signer (ECDSA by the address's key, else ERC-1271/6492
 * through RPC_URL_<target chain>), with its nonce and deadline: what makes this registration the one that receives
 * the account's deposits.
 */
async function checkAccountSignature(
  s: Services,
  projectId: string,
  body: AccountBody,
  targetChainId: number,
): Promise<AccountProof | undefined> {
  if (!body.accountSignature) return undefined;
  const proof = { nonce: body.accountNonce!, deadline: body.accountDeadline! }; // the schema requires both with the signature
  requireLive(s, proof.deadline, at('account', 'accountDeadline'));
  const typedData = registerAccountTypedData(body.address, targetChainId, s.sessionSigner(projectId).address, proof);
  await requireSignature(
    body.address,
    body.accountSignature,
    typedData,
    ['EOA', 'ERC7579'],
    at('account', 'accountSignature'),
    {
      error: 'Invalid account signature: not signed by the account',
      message: "is not the account's RegisterAccount signature",
    },
    s.rpc,
  );
  return proof;
}

async function register(ctx: Context, s: Services, body: AccountBody, managed: boolean) {
  const reserved = reservedAddress(body.address, s.registry, s.config);
  if (reserved) {
    throw depositError('VALIDATION_ERROR', `The address ${reserved}: it can be no deposit account`, undefined, [
      { message: reserved, path: at('account', 'address'), code: 'reserved' },
    ]);
  }
  const targetChainId = servedChainId(s.registry, body.target, at('account', 'target'), 'target chain');
  // The project's own signer: an account enabled for another project's signer cannot be driven from this one.
  const signer = s.sessionSigner(project(ctx)).address;
  if (managed && !isAddressEqual(body.sessionSigner as `0x${string}`, signer)) {
    throw depositError('VALIDATION_ERROR', "sessionSigner is not this project's session signer", undefined, [
      {
        message: `must be ${signer} (GET /chains → sessionSigner)`,
        path: at('account', 'sessionSigner'),
        code: 'const',
      },
    ]);
  }
  if (body.sessionDetails)
    await checkSessions(
      s,
      project(ctx),
      { ...body, targetChainId },
      body.sessionDetails,
      at('account', 'sessionDetails'),
    );
  const proof = await checkAccountSignature(s, project(ctx), body, targetChainId);
  // Without its signature, the account proves it is this project's by having enabled the project's signer on chain.
  const onChain =
    !proof && (await enablesSessionSigner(body.address, targetChainId, s.sessionSigner(project(ctx)), s.rpc));
  const result = await recordRegistration(
    s.db,
    project(ctx),
    {
      address: body.address,
      owner: body.owner,
      ownerType: body.ownerType,
      managed,
      sessionSigner: signer,
      targetChainId,
      targetToken: body.target.token,
      recipient: body.target.recipient,
      requireCompliance: body.requireCompliance,
    },
    { proof, onChain, sessions: body.sessionDetails },
    { nonce: at('account', 'accountNonce'), address: at('account', 'address') },
  );
  const account = body.sessionDetails ? (await findAccount(s.db, body.address, project(ctx)))! : result.account;
  return { status: result.created ? 201 : 200, body: presentAccount(account) };
}

/** An account of this project, else 404 (another project's account is not revealed). */
async function ownAccount(ctx: Context, s: Services, address: string): Promise<DepositAccount> {
  const account = await findAccount(s.db, address, project(ctx));
  if (!account) {
    throw depositError('NOT_FOUND', 'Account not found', 'ACCOUNT-1', [
      { message: 'is not a registered account of this project', path: ['params', 'address'], code: 'ACCOUNT-1' },
    ]);
  }
  return account;
}

const responses = {
  201: { description: 'registered', schema: schema.accountRecord },
  200: { description: 'already registered with the same details', schema: schema.accountRecord },
  400: { description: 'invalid body, unsupported target (code CHAIN-1 / TOKEN-1) or session signature' },
  409: { description: 'registered by this project with other details' },
};

const accountRoute = routeGroup({ tags: ['deposits'], auth: 'apiKey' });

/** Under /deposit-processor (docs/deposit-processor.md, Accounts and sessions). */
export const accountRoutes: RouteDef[] = [
  accountRoute('post', '/setup', {
    summary:
      "Register a user-owned deposit account (the owner signs its sessions; deposits from a chain need that chain's session)",
    body: schema.setupBody,
    responses,
    handler: (ctx, { body }, s) => register(ctx, s, body.account, false),
  }),
  accountRoute('post', '/register-managed', {
    summary: "Register a managed deposit account: the processor's session signer acts for it on every supported chain",
    body: schema.registerManagedBody,
    responses,
    handler: (ctx, { body }, s) => register(ctx, s, body.account, true),
  }),
  accountRoute('post', '/account/{address}/release', {
    summary:
      "End a project's hold on the account, signed by the account: that registration receives none of its deposits from now on",
    params: schema.addressParams,
    body: schema.releaseBody,
    responses: {
      200: {
        description: '{message}: whichever project the signer is, and whether or not it registered the account',
        schema: schema.messageResponse,
      },
      400: { description: '{error, details}: invalid body, a deadline passed, or a signature not by the account' },
      409: { description: '{error, details}: the nonce is not above the last one the account signed with' },
    },
    async handler(_ctx, { params, body }, s) {
      const chainId = servedChain(s.registry, body.chain, ['body'], 'chain');
      requireLive(s, body.deadline, ['body', 'deadline']);
      await requireSignature(
        params.address,
        body.signature,
        releaseAccountTypedData(params.address, chainId, body.sessionSigner, body),
        ['EOA', 'ERC7579'],
        ['body', 'signature'],
        {
          error: 'Invalid release signature: not signed by the account',
          message: "is not the account's ReleaseAccount signature",
        },
        s.rpc,
      );
      await releaseAccount(s.db, params.address, body.nonce, body.sessionSigner, ['body', 'nonce']);
      return {
        status: 200,
        body: { message: "Released: deposits into the account no longer go to that session signer's project" },
      };
    },
  }),
  accountRoute('get', '/account/{address}', {
    summary: 'A deposit account of this project, as registered, with its session chains',
    params: schema.addressParams,
    responses: {
      200: { description: 'the account', schema: schema.accountRecord },
      404: { description: 'not an account of this project (code ACCOUNT-1)' },
    },
    async handler(ctx, { params }, s) {
      return { status: 200, body: presentAccount(await ownAccount(ctx, s, params.address)) };
    },
  }),
  accountRoute('post', '/account/{address}/session', {
    summary:
      "Add session details (chain ids, session digests and the owner's signature over them) to an existing account",
    params: schema.addressParams,
    body: schema.sessionBody,
    responses: {
      200: { description: '{message}', schema: schema.messageResponse },
      400: { description: '{error, details}: invalid body, unsupported chain or a signature not by the owner' },
      404: { description: '{error, code: ACCOUNT-1, details}: no such account in this project' },
    },
    async handler(ctx, { params, body }, s) {
      const account = await ownAccount(ctx, s, params.address);
      await checkSessions(s, project(ctx), account, body.sessionDetails, ['body', 'sessionDetails']);
      await addAccountSessions(s.db, account, body.sessionDetails);
      const chains = body.sessionDetails.hashesAndChainIds.length;
      return { status: 200, body: { message: `Session details added for ${chains} chain${chains === 1 ? '' : 's'}` } };
    },
  }),
];
