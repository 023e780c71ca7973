import path from 'node:path';
import { recoverAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createProject } from '../../src/projects/api-keys';
import { claimDigest, claimHashFrom, claimHashOf, elementHashOf, witnessOf } from '../support/compact-claim';
import { ARB_USDC, BASE_USDC, blockAt, claimEvent, getCompactTypedData, lockedSnapshot, TX } from '../support/fixtures';
import { Api, call, ingest, startApi } from '../support/harness';
import { activeReservations } from '../support/reservations';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const v1: any = require(path.join(sdkDir, 'orchestrator'));
const { createAuthProvider }: any = require(path.join(sdkDir, 'auth/provider'));
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

const COMPACT = '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f'; // COMPACT_ADDRESS's default
const USDC: Record<number, string> = {
  8453: BASE_USDC,
  10: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
};

let api: Api;
let client: any; // eslint-disable-line @typescript-eslint/no-explicit-any
let allocatorAddress: string;

beforeAll(async () => {
  api = await startApi();
  client = v1.getOrchestrator(createAuthProvider({ apiKey: api.apiKey }), api.url);
  allocatorAddress = (await call(api, 'GET', '/health')).json.allocatorAddress;
});
afterAll(() => api.close());

const snapshot = (account: string, chainId: number, locked: string, block: number, blockTimestamp?: number) =>
  lockedSnapshot(account, locked, { chainId, token: USDC[chainId], blockNumber: String(block), blockTimestamp });

/** Quoted by the published client, signed with its own typed data (one signature for every element), submitted. */
/** `deadlineIn`: the fill deadline that many seconds after the route is asked (after the funds are ingested). */
async function submitted(
  locked: Record<number, string>,
  amount: bigint,
  options: Record<string, unknown> = {},
  deadlineIn?: number,
) {
  const account = privateKeyToAccount(generatePrivateKey());
  await ingest(
    api,
    Object.entries(locked).map(([chainId, l]) => snapshot(account.address, Number(chainId), l, 1)),
  );
  const { intentOp } = await client.getIntentRoute({
    account: { address: account.address, accountType: 'EOA', setupOps: [] },
    destinationChainId: 42161,
    destinationExecutions: [],
    tokenRequests: [{ tokenAddress: ARB_USDC, amount }],
    options: {
      topupCompact: false,
      signatureMode: 1,
      ...options,
      ...(deadlineIn ? { customDeadline: Math.floor(Date.now() / 1000) + deadlineIn } : {}),
    },
  });
  const signature = await account.signTypedData(getCompactTypedData(intentOp));
  const { result } = await client.submitIntent({
    ...intentOp,
    originSignatures: intentOp.elements.map(() => signature),
    destinationSignature: signature,
  });
  return { account, op: intentOp, signature, intentId: result.id as string };
}

const authorization = (intentId: string, headers: Record<string, string> = {}) =>
  call(api, 'GET', `/intent-operation/${intentId}/claim-authorization`, { headers });

test("a relayer can claim: each origin chain's allocatorData, checked against The Compact's digest computed independently, the same when asked again, none for a chain whose claim settled", async () => {
  const { account, op, signature, intentId } = await submitted({ 8453: '3000000', 10: '3000000' }, 4_000_000n);
  expect(op.elements.map((e: { chainId: string }) => Number(e.chainId)).sort()).toEqual([10, 8453]);
  const res = await authorization(intentId);
  expect(res.status).toBe(200);
  const claimHash = claimHashOf(op);
  expect(res.json).toMatchObject({ nonce: op.nonce, expires: op.expires, sponsor: op.sponsor, claimHash });
  const notarizedChainId = Number(op.elements[0].chainId);
  // The sponsor's signature is valid for this claimHash in the notarized chain's domain, as the contract checks it.
  expect(await recoverAddress({ hash: claimDigest(claimHash, notarizedChainId, COMPACT), signature })).toBe(
    account.address,
  );
  for (const [i, e] of res.json.elements.entries()) {
    expect(e).toMatchObject({
      chainId: Number(op.elements[i].chainId),
      fundingMethod: 'COMPACT',
      compact: COMPACT,
      notarizedChainId,
      sponsorSignature: signature,
      witness: witnessOf(op.elements[i].mandate),
    });
    expect(e.claim).toBe(i === 0 ? 'multichainClaim' : 'exogenousClaim');
    const at = i === 0 ? 0 : e.chainIndex + 1;
    expect(
      claimHashFrom(op, [
        ...e.additionalChains.slice(0, at),
        elementHashOf(op.elements[i]),
        ...e.additionalChains.slice(at),
      ]),
    ).toBe(claimHash);
    expect(
      await recoverAddress({ hash: claimDigest(claimHash, e.chainId, COMPACT), signature: e.allocatorData as Hex }),
    ).toBe(allocatorAddress);
  }
  expect((await authorization(intentId)).json).toEqual(res.json);

  // The claim on the exogenous chain settles once a snapshot shows it: the allocator signs nothing more for that chain.
  const exogenous = Number(op.elements[1].chainId);
  await ingest(api, [claimEvent(intentId, TX(1), { chainId: exogenous, blockNumber: '2' })]);
  expect((await authorization(intentId)).json).toEqual(res.json); // claimed, not yet settled: still held
  await ingest(api, [snapshot(account.address, exogenous, '1', 2)]);
  const settled = await authorization(intentId);
  expect(
    settled.json.elements.map((e: { chainId: number; allocatorData: string | null }) => [e.chainId, e.allocatorData]),
  ).toEqual([
    [notarizedChainId, res.json.elements[0].allocatorData],
    [exogenous, null],
  ]);

  // Once every chain's claim settled, nothing is left to authorize.
  await ingest(api, [claimEvent(intentId, TX(2), { chainId: notarizedChainId, blockNumber: '2' })]);
  await ingest(api, [snapshot(account.address, notarizedChainId, '1', 2)]);
  const none = await authorization(intentId);
  expect(none.status).toBe(409);
  expect(none.json).toEqual({
    message: `Intent ${intentId} holds no reserved funds any more (its claims settled, or it was cancelled): no claim of it is authorized`,
    errors: [
      {
        message: `Intent ${intentId} holds no reserved funds any more (its claims settled, or it was cancelled): no claim of it is authorized`,
      },
    ],
    traceId: expect.any(String),
  });
});

test("a relayer can claim: refused past `expires` (its funds then released by a snapshot at or after it), and for another project's intent (404, nothing revealed)", async () => {
  const { account, op, intentId } = await submitted({ 8453: '3000000' }, 1_000_000n, {}, 5);
  expect((await authorization(intentId)).status).toBe(200);

  const { apiKey: otherProject } = await createProject(api.db, 'another');
  const foreign = await authorization(intentId, { 'x-api-key': otherProject });
  expect(foreign.status).toBe(404);
  expect(foreign.json).toEqual({
    message: `No such intent with nonce ${intentId}`,
    errors: [{ message: `No such intent with nonce ${intentId}` }],
    traceId: expect.any(String),
  });
  expect((await authorization('123456789')).status).toBe(404);

  // The lifecycle ends at `expires` (INTENT_CLAIM_WINDOW_SECONDS=5 in tests); the reservation is held until a snapshot at or after it.
  await api.temporal.workflow.getHandle(`intent-${intentId}`).result();
  const expires = Number(op.expires);
  const message = `Intent ${intentId} expired at ${expires}: The Compact accepts no claim of it`;
  const held = await authorization(intentId);
  expect([held.status, held.json.message]).toEqual([409, message]);
  await ingest(api, [snapshot(account.address, 8453, '3000000', blockAt(expires), expires)]);
  expect(await activeReservations(api, intentId)).toBe(0);
  const released = await authorization(intentId);
  expect([released.status, released.json.message]).toEqual([409, message]);
});
