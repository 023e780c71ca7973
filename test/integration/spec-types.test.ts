import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ARB_USDC, BASE_USDC } from '../support/fixtures';
import { Api, call, fundedAccount, startApi } from '../support/harness';
import { SPEC_REQUEST_FIELDS, type SpecType } from '../support/spec-types';

/**
 * The spec's wire contract as a client written from it sends it: for every request field the spec types
 * (test/support/spec-types.ts), a body valid in every other respect with that field in the spec's type draws no
 * validation error about it. The routes may refuse for other reasons (no funds, no such quote, a bad signature):
 * that is not the contract's concern here.
 */
let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const address = () => privateKeyToAccount(generatePrivateKey()).address;
const HEX32 = `0x${'ab'.repeat(32)}`;
const SIG = `0x${'cd'.repeat(65)}`;

/** An account object of the intent routes with every field the spec lists. */
const accountObject = (addr: string) => ({
  address: addr,
  accountType: 'smartAccount',
  setupOps: [{ to: address(), data: '0x' }],
  emissaryConfig: {
    validatorAddress: address(),
    emissaryAddress: address(),
    emissaryEnable: { allocatorSig: SIG, userSig: SIG },
    settings: { allocator: address() },
  },
  delegations: {},
});

async function quoteBody() {
  return {
    destinationChainId: 42161,
    tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
    account: accountObject(address()),
    destinationExecutions: [{ to: address(), value: '0', data: '0x' }],
    destinationGasUnits: 100000,
    accountAccessList: {
      chainIds: [8453],
      tokens: [BASE_USDC],
      chainTokens: { '8453': [BASE_USDC] },
      exclude: { chainIds: [10], tokens: [ARB_USDC], chainTokens: {} },
    },
    recipient: accountObject(address()),
    options: {
      topupCompact: false,
      settlementLayers: ['ACROSS'],
      sponsorSettings: { gasSponsored: false, bridgeFeesSponsored: false, swapFeesSponsored: false },
      feeToken: 'USDC',
    },
  };
}

/** Each route's body, valid in every respect the schema checks. */
async function baseBody(route: string): Promise<{ path: string; body: Record<string, unknown> }> {
  const [, path] = route.split(' ');
  const user = address();
  const at = path.replace('{address}', user).replace('{userAddress}', user).replace('{bundleId}', '1');
  switch (route) {
    case 'POST /deposit-processor/account/{address}/session':
      return {
        path: at,
        body: { sessionDetails: { hashesAndChainIds: [{ chainId: 8453, sessionDigest: HEX32 }], signature: SIG } },
      };
    case 'POST /deposit-processor/webhooks/test':
      return { path: at, body: { type: 'deposit-received' } };
    case 'POST /intents/route':
    case 'POST /intents/cost':
      return { path: at, body: await quoteBody() };
    case 'POST /intent-operations': {
      // A real quote's operation, with signatures that verify nothing: refused later, never for its shape.
      const sponsor = await fundedAccount(api);
      const quoted = await call(api, 'POST', '/intents/route', {
        body: {
          destinationChainId: 42161,
          tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
          account: { address: sponsor.address, accountType: 'EOA', setupOps: [] },
        },
      });
      expect(quoted.status).toBe(200);
      const { intentOp } = quoted.json;
      return {
        path: at,
        body: {
          signedIntentOp: {
            ...intentOp,
            destinationSignature: SIG,
            originSignatures: [SIG],
            targetExecutionSignature: SIG,
            options: { dryRun: true },
          },
        },
      };
    }
    case 'POST /intents/split':
      return { path: at, body: { chainId: 42161, tokens: { [ARB_USDC]: '1000000' }, settlementLayers: ['ACROSS'] } };
    case 'POST /withdrawals':
      return {
        path: at,
        body: { account: user, chainId: 8453, tokenAddress: BASE_USDC, amount: '40000000', recipient: address() },
      };
    case 'POST /batch-withdrawals':
      return {
        path: at,
        body: {
          account: user,
          chainId: 8453,
          transfers: [{ recipient: address(), tokenAddress: BASE_USDC, amount: '1' }],
        },
      };
    case 'POST /legacy/bundles': {
      const witness = {
        recipient: user,
        tokenOut: [['1', '1']],
        depositId: '1',
        targetChain: '42161',
        fillDeadline: 1,
        execs: [],
        userOpHash: HEX32,
        maxFeeBps: 0,
      };
      const signedOrderBundle = {
        sponsor: user,
        nonce: '1',
        expires: '9999999999',
        segments: [{ arbiter: address(), chainId: '8453', idsAndAmounts: [['1', '1']], witness }],
        targetSignature: SIG,
        originSignatures: [SIG],
      };
      return { path: at, body: { bundles: [{ signedOrderBundle, initCode: `${address()}${'00'.repeat(4)}` }] } };
    }
    case 'POST /legacy/accounts/{userAddress}/bundles/cost':
      return {
        path: at,
        body: {
          targetChainId: 42161,
          tokenTransfers: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
          targetGasUnits: '100000',
          userOp: { callGasLimit: '1', verificationGasLimit: '1', preVerificationGas: '1' },
          accountAccessList: [{ chainId: 8453, tokenAddress: BASE_USDC }],
        },
      };
    case 'POST /legacy/accounts/{userAddress}/bundles/path':
      return {
        path: at,
        body: {
          targetChainId: 42161,
          tokenTransfers: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
          targetAccount: user,
          targetExecutions: [{ to: address(), value: '0', data: '0x' }],
          userOp: {
            sender: user,
            nonce: '0',
            callData: '0x',
            callGasLimit: '1',
            verificationGasLimit: '1',
            preVerificationGas: '1',
          },
          omniLock: true,
          targetGasUnits: '100000',
          lockMode: 'COMPACT',
          accountAccessList: [{ chainId: 8453, tokenAddress: BASE_USDC }],
        },
      };
    case 'POST /legacy/bundles/{bundleId}/events':
      return { path: at, body: { type: 'FillPreconfirmation', chainId: 42161, txHash: HEX32 } };
  }
  throw new Error(`no base body for ${route}: add one beside its spec fields`);
}

/** The field's value turned into the spec's type (the base holds the schema's valid value of it). */
function inSpecType(value: unknown, type: SpecType): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'number' ? String(value) : value;
    case 'number':
    case 'integer':
      return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    default:
      return value;
  }
}
const ofType = (value: unknown, type: SpecType) =>
  type === 'array'
    ? Array.isArray(value)
    : type === 'object'
      ? typeof value === 'object' && value !== null && !Array.isArray(value)
      : type === 'integer'
        ? Number.isInteger(value)
        : typeof value === type;

/** Sets the field (dots, `[]`: the first item, `*`: every value of a map) to the spec's type; whether it was there. */
function setField(body: Record<string, unknown>, field: string, type: SpecType): boolean {
  const keys = field.replace(/\[\]/g, '.0').split('.');
  let found = false;
  const walk = (node: unknown, i: number) => {
    if (typeof node !== 'object' || node === null) return;
    const parent = node as Record<string, unknown>;
    const names = keys[i] === '*' ? Object.keys(parent) : [keys[i]];
    for (const name of names) {
      if (!(name in parent)) continue;
      if (i < keys.length - 1) walk(parent[name], i + 1);
      else {
        parent[name] = inSpecType(parent[name], type);
        found = ofType(parent[name], type);
      }
    }
  };
  walk(body, 0);
  return found;
}

/** The validation problems a 400 names (the field paths of any host's validation error body). */
function validationProblems(res: { status: number; json: unknown }): string[] {
  if (res.status !== 400) return [];
  const json = res.json as {
    code?: string;
    errors?: { context?: { path?: string; location?: string } }[];
    details?: { path?: (string | number)[] }[];
  };
  const validation = json.code === 'VALIDATION_ERROR' || (json.errors ?? []).some((e) => e.context?.location);
  if (!validation) return [];
  return [
    ...(json.errors ?? []).map((e) => e.context?.path ?? '/'),
    ...(json.details ?? []).map((d) => `/${(d.path ?? []).slice(1).join('/')}`),
  ];
}

test('the spec types every one of these request fields, and the table covers every route of it', () => {
  const routes = new Set(SPEC_REQUEST_FIELDS.map((f) => f.route));
  expect([...routes].sort()).toEqual(
    [
      'POST /batch-withdrawals',
      'POST /deposit-processor/account/{address}/session',
      'POST /deposit-processor/webhooks/test',
      'POST /intent-operations',
      'POST /intents/cost',
      'POST /intents/route',
      'POST /intents/split',
      'POST /legacy/accounts/{userAddress}/bundles/cost',
      'POST /legacy/accounts/{userAddress}/bundles/path',
      'POST /legacy/bundles',
      'POST /legacy/bundles/{bundleId}/events',
      'POST /withdrawals',
    ].sort(),
  );
  expect(SPEC_REQUEST_FIELDS.length).toBeGreaterThan(100);
});

test.each(SPEC_REQUEST_FIELDS.map((f) => [f.route, f.field, f.type] as const))(
  '%s `%s` as the spec types it (%s) draws no validation error',
  async (route, field, type) => {
    const { path, body } = await baseBody(route);
    expect(setField(body, field, type)).toBe(true);
    const res = await call(api, route.split(' ')[0], path, { body });
    // The rest of the body is valid: any validation problem is the field's.
    expect({ problems: validationProblems(res), text: validationProblems(res).length ? res.text : '' }).toEqual({
      problems: [],
      text: '',
    });
  },
);
