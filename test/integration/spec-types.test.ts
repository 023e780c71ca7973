import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { proveAccount } from '../../src/projects/account-store';
import { DP, newOwner, projectSigner, signSessions } from '../support/deposits';
import { ARB_USDC, BASE_USDC, claimEvent, eventId, fillEvent, TX, walletSnapshot } from '../support/fixtures';
import { Api, call, fundedAccount, ingest, startApi, until } from '../support/harness';
import { signedQuote } from '../support/intents';
import { newProject, subscribe } from '../support/projects';
import { suiteReceivers } from '../support/receiver';
import { SPEC_RESPONSE_FIELDS, type SpecResponseField } from '../support/spec-response-types';
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

describe("answers: every response field the spec types is there, in the spec's type", () => {
  /** A JSON number as its literal in the answer's text: read whole however many digits it has. */
  class JsonNumber {
    constructor(readonly literal: string) {}
  }
  const NUMBER = '\uE000'; // a private-use character that starts no string of an answer

  /**
   * The answer with each JSON number a `JsonNumber`: a 256-bit literal would be rounded by JSON.parse, and `1` must
   * be told from `"1"`. Strings are matched whole before numbers, so digits inside a string are never taken for one.
   */
  function parseLiterals(text: string): unknown {
    const marked = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (token) =>
      token.startsWith('"') ? token : `"${NUMBER}${token}"`,
    );
    return JSON.parse(marked, (_key, value) =>
      typeof value === 'string' && value.startsWith(NUMBER) ? new JsonNumber(value.slice(1)) : value,
    );
  }

  /** An integer literal (256 bits included), or a literal whose value is an exact integer (`1.0`). */
  const isInteger = (n: JsonNumber) => /^-?\d+$/.test(n.literal) || Number.isSafeInteger(Number(n.literal));
  /** What the withdrawals write for a 256-bit value: digits only, below 2^256. */
  const isUint256 = (n: JsonNumber) => /^\d+$/.test(n.literal) && BigInt(n.literal) < 2n ** 256n;

  function inSpecType(value: unknown, row: SpecResponseField): boolean {
    if (value instanceof JsonNumber) {
      const typed = row.type === 'number' || (row.type === 'integer' && isInteger(value));
      return typed && (!row.exactInteger || isUint256(value));
    }
    switch (row.type) {
      case 'array':
        return Array.isArray(value);
      case 'object':
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      case 'string':
      case 'boolean':
        return typeof value === row.type;
      default:
        return false; // a number or an integer that is not a JSON number
    }
  }
  const show = (value: unknown) =>
    value instanceof JsonNumber
      ? `number ${value.literal}`
      : `${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value} ${JSON.stringify(value)?.slice(0, 80)}`;

  /** The values at `field` (dots, `[]`: the first item, `*`: every value of a map, `.0`: a pair's first item). */
  function valuesAt(answer: unknown, field: string): unknown[] {
    let values = [answer];
    for (const key of field.replace(/\[\]/g, '.0').split('.')) {
      values = values.flatMap((node) => {
        if (typeof node !== 'object' || node === null || node instanceof JsonNumber) return [];
        const parent = node as Record<string, unknown>;
        return key === '*' ? Object.values(parent) : key in parent ? [parent[key]] : [];
      });
    }
    return values;
  }

  /** The answer's text, once it is the route's success. */
  function successText(res: { status: number; text: string }, status = 200): string {
    if (res.status !== status) throw new Error(`answered ${res.status}, not ${status}: ${res.text}`);
    return res.text;
  }
  const once = <T>(make: () => Promise<T>) => {
    let made: Promise<T> | undefined;
    return () => (made ??= make());
  };

  const receiver = suiteReceivers();
  /** A project of its own whose webhooks go to a receiver that accepts them. */
  const webhookProject = once(async () => {
    const p = await newProject(api, 'spec-types');
    await subscribe(p, await receiver());
    return p;
  });
  const sendTestEvent = async () =>
    successText(
      await call(await webhookProject(), 'POST', `${DP}/webhooks/test`, { body: { type: 'deposit-received' } }),
    );
  /** Locked USDC the project may withdraw for the account (docs/trust-model.md: who may withdraw). */
  const withdrawer = once(async () => {
    const account = (await fundedAccount(api)).address;
    await proveAccount(api.db.manager, api.projectId, account, 'operator');
    return account;
  });
  /** A quote of an account's locked funds, signed with the published client's typed data, and submitted. */
  const submitted = once(async () => {
    const { id, signedIntentOp } = await signedQuote(api, await fundedAccount(api));
    return { id, text: successText(await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } }), 201) };
  });
  const holder = once(() => fundedAccount(api));
  const POLYGON_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'; // relayer liquidity no other suite sets

  /** One real answer of each route, as a client gets it. */
  const answers: Record<string, () => Promise<string>> = {
    'POST /deposit-processor/account/{address}/session': async () => {
      const p = await newProject(api, 'spec-types-sessions');
      const { owner, address: account } = newOwner();
      const target = { chain: 'eip155:42161', token: ARB_USDC };
      const setup = await call(p, 'POST', `${DP}/setup`, {
        body: { account: { address: account, owner: owner.address, target } },
      });
      successText(setup, 201);
      const sessionDetails = await signSessions(owner, account, 42161, [8453], await projectSigner(p));
      return successText(await call(p, 'POST', `${DP}/account/${account}/session`, { body: { sessionDetails } }));
    },
    'POST /deposit-processor/webhooks/test': sendTestEvent,
    'GET /deposit-processor/webhooks/events': async () => {
      // Two delivered events of a deposit, one a page: the event has its deposit and its delivery time, and the
      // page a cursor to the next (each is null where there is none).
      const p = await webhookProject();
      for (const sent of [await sendTestEvent(), await sendTestEvent()]) {
        const id = JSON.parse(sent).eventId;
        await until(`event ${id} delivered`, async () =>
          (await call(p, 'GET', `${DP}/webhooks/events/${id}`)).json?.status === 'delivered' ? true : undefined,
        );
      }
      return successText(await call(p, 'GET', `${DP}/webhooks/events?limit=1`));
    },
    'POST /intents/route': async () => {
      // An EOA's wallet funds: the quote spends them through Permit2, so it carries `tokenRequirements` too.
      const account = address();
      expect((await ingest(api, [walletSnapshot(account, '5000000')])).status).toBe(200);
      const body = {
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
        account: { address: account, accountType: 'EOA', setupOps: [] },
      };
      return successText(await call(api, 'POST', '/intents/route', { body }));
    },
    'POST /intent-operations': async () => (await submitted()).text,
    'GET /intent-operation/{id}': async () => {
      // Claimed and filled: only then does the status carry the claim's and the fill's fields.
      const { id } = await submitted();
      const at = Math.floor(Date.now() / 1000);
      const mined = await ingest(api, [
        claimEvent(id, TX(1), { timestamp: at }),
        fillEvent(id, TX(2), { timestamp: at }),
      ]);
      expect(mined.status).toBe(200);
      return until('the claim and the fill in the status', async () => {
        const res = await call(api, 'GET', `/intent-operation/${id}`);
        return res.json?.fillTransactionHash && res.json.claims?.[0]?.claimTransactionHash
          ? successText(res)
          : undefined;
      });
    },
    'POST /intents/split': async () => {
      const liquidity = { type: 'liquidity', chainId: 137, settlementLayer: 'ACROSS', token: POLYGON_USDC };
      expect((await ingest(api, [{ id: eventId(), ...liquidity, amount: '1000000' }])).status).toBe(200);
      return successText(
        await call(api, 'POST', '/intents/split', { body: { chainId: 137, tokens: { [POLYGON_USDC]: '1000' } } }),
      );
    },
    'POST /withdrawals': async () => {
      const body = {
        account: await withdrawer(),
        chainId: 8453,
        tokenAddress: BASE_USDC,
        amount: '1250000',
        recipient: address(),
      };
      return successText(await call(api, 'POST', '/withdrawals', { body }));
    },
    'POST /batch-withdrawals': async () => {
      const transfers = [{ recipient: address(), tokenAddress: BASE_USDC, amount: '100' }];
      const body = { account: await withdrawer(), chainId: 8453, transfers };
      return successText(await call(api, 'POST', '/batch-withdrawals', { body }));
    },
    'GET /accounts/{userAddress}/portfolio': async () =>
      successText(await call(api, 'GET', `/accounts/${(await holder()).address}/portfolio`)),
    'GET /legacy/accounts/{userAddress}/portfolio': async () =>
      successText(await call(api, 'GET', `/legacy/accounts/${(await holder()).address}/portfolio`)),
  };
  const answered = new Map<string, Promise<string>>();
  function answerOf(route: string): Promise<string> {
    if (!answered.has(route)) answered.set(route, answers[route]());
    return answered.get(route)!;
  }

  test('the response table covers these routes, and each has a real answer to check', () => {
    const routes = [...new Set(SPEC_RESPONSE_FIELDS.map((f) => f.route))].sort();
    expect(routes).toEqual(
      [
        'GET /accounts/{userAddress}/portfolio',
        'GET /deposit-processor/webhooks/events',
        'GET /intent-operation/{id}',
        'GET /legacy/accounts/{userAddress}/portfolio',
        'POST /batch-withdrawals',
        'POST /deposit-processor/account/{address}/session',
        'POST /deposit-processor/webhooks/test',
        'POST /intent-operations',
        'POST /intents/route',
        'POST /intents/split',
        'POST /withdrawals',
      ].sort(),
    );
    expect(Object.keys(answers).sort()).toEqual(routes);
  });

  test.each(SPEC_RESPONSE_FIELDS.map((f) => [f.route, f.field, f.type, f] as const))(
    '%s answers `%s` as the spec types it (%s)',
    async (route, field, _type, row) => {
      const values = valuesAt(parseLiterals(await answerOf(route)), field);
      const notInType = values.filter((v) => !inSpecType(v, row)).map(show);
      expect({ present: values.length > 0, notInType }).toEqual({ present: true, notInType: [] });
    },
  );
});
