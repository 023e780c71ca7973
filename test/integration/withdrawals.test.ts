import { hashTypedData, recoverAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { proveAccount } from '../../src/projects/account-store';
import { waitFor } from '../../src/dev/processes';
import { ARB_USDC, BASE_USDC, blockAt, eventId, getCompactTypedData, lockedSnapshot } from '../support/fixtures';
import { Api, call, ingest, startApi } from '../support/harness';
import { reservedFor } from '../support/reservations';

const COMPACT = '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f'; // COMPACT_ADDRESS's default: where intents are claimed too
const BASE_WETH = '0x4200000000000000000000000000000000000006';
const OTHER_ALLOCATOR_TAG = '0x60e6d13bb05699a31a457679';

let api: Api;
let allocator: Hex;
let lockTag: Hex;

/** 256-bit integers arrive as exact literals; quote them before JSON.parse so nothing is rounded. */
const parseExact = (text: string) => JSON.parse(text.replace(/([:[,]\s*)(\d+)(?=\s*[,}\]])/g, '$1"$2"'));

beforeAll(async () => {
  api = await startApi();
  const health = (await call(api, 'GET', '/health')).json;
  allocator = health.allocatorAddress;
  lockTag = health.lockTag;
});
afterAll(() => api.close());

async function funded(locked: Record<string, string>) {
  const account = privateKeyToAccount(generatePrivateKey()).address;
  await ingest(
    api,
    Object.entries(locked).map(([token, amount]) => lockedSnapshot(account, amount, { token })),
  );
  await proveAccount(api.db.manager, api.projectId, account, 'operator'); // the project may withdraw for it
  return account;
}
const withdraw = (body: Record<string, unknown>) => call(api, 'POST', '/withdrawals', { body });
const lockId = (token: string) => BigInt(`${lockTag}${token.slice(2).toLowerCase()}`);

test('single withdrawal: the Compact digest recomputed with viem recovers to the allocator', async () => {
  const account = await funded({ [BASE_USDC]: '5000000' });
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const res = await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '1250000', recipient });
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/"nonce":\d{40,}/); // a 256-bit integer literal, not a string and not rounded
  const { allocatorData, transferDetails: t } = parseExact(res.text);
  expect(BigInt(t.id)).toBe(lockId(BASE_USDC));
  expect(t.recipients).toEqual([{ claimant: BigInt(recipient).toString(), amount: '1250000' }]); // lock tag 0: withdraw
  expect(BigInt(t.nonce) >> 96n).toBe(BigInt(account)); // sponsor-prefixed nonce
  const digest = hashTypedData({
    domain: { name: 'The Compact', version: '1', chainId: 8453, verifyingContract: COMPACT },
    types: {
      Compact: [
        { name: 'arbiter', type: 'address' },
        { name: 'sponsor', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'expires', type: 'uint256' },
        { name: 'lockTag', type: 'bytes12' },
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
    },
    primaryType: 'Compact',
    message: {
      arbiter: account,
      sponsor: account,
      nonce: BigInt(t.nonce),
      expires: BigInt(t.expires),
      lockTag,
      token: BASE_USDC,
      amount: 1_250_000n,
    },
  });
  expect(await recoverAddress({ hash: digest, signature: allocatorData })).toBe(allocator);
  expect(await reservedFor(api, account)).toBe(1_250_000n);
});

test('batch withdrawal: BatchCompact over locks in transfer order, portions per recipient; mixed allocators refused', async () => {
  const account = await funded({ [BASE_USDC]: '5000000', [BASE_WETH]: '10000000000000000000' });
  const [r1, r2] = [
    privateKeyToAccount(generatePrivateKey()).address,
    privateKeyToAccount(generatePrivateKey()).address,
  ];
  const res = await call(api, 'POST', '/batch-withdrawals', {
    body: {
      account,
      chainId: 8453,
      transfers: [
        { recipient: r1, tokenAddress: BASE_WETH, amount: '2000000000000000000' },
        { recipient: r1, tokenAddress: BASE_USDC, amount: '100' },
        { recipient: r2, tokenAddress: BASE_USDC, amount: '200' },
      ],
    },
  });
  expect(res.status).toBe(200);
  const { allocatorData, batchTransferDetails: b } = parseExact(res.text);
  expect(b.transfers.map((t: { id: string }) => BigInt(t.id))).toEqual([lockId(BASE_WETH), lockId(BASE_USDC)]);
  expect(b.transfers[1].portions).toEqual([
    { claimant: BigInt(r1).toString(), amount: '100' },
    { claimant: BigInt(r2).toString(), amount: '200' },
  ]);
  const lockType = [
    { name: 'lockTag', type: 'bytes12' },
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ] as const;
  const digest = hashTypedData({
    domain: { name: 'The Compact', version: '1', chainId: 8453, verifyingContract: COMPACT },
    types: {
      BatchCompact: [
        { name: 'arbiter', type: 'address' },
        { name: 'sponsor', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'expires', type: 'uint256' },
        { name: 'commitments', type: 'Lock[]' },
      ],
      Lock: lockType,
    },
    primaryType: 'BatchCompact',
    message: {
      arbiter: account,
      sponsor: account,
      nonce: BigInt(b.nonce),
      expires: BigInt(b.expires),
      commitments: [
        { lockTag, token: BASE_WETH, amount: 2_000_000_000_000_000_000n },
        { lockTag, token: BASE_USDC, amount: 300n },
      ],
    },
  });
  expect(await recoverAddress({ hash: digest, signature: allocatorData })).toBe(allocator);

  const mixed = await call(api, 'POST', '/batch-withdrawals', {
    body: {
      account,
      chainId: 8453,
      transfers: [
        { recipient: r1, tokenAddress: BASE_USDC, amount: '1' },
        { recipient: r1, tokenAddress: BASE_WETH, amount: '1', lockTag: OTHER_ALLOCATOR_TAG },
      ],
    },
  });
  expect(mixed.status).toBe(400);
  expect(mixed.json.message).toBe('All transfers of a batch must spend locks of one allocator');
  const foreign = await withdraw({
    account,
    chainId: 8453,
    tokenAddress: BASE_USDC,
    amount: '1',
    recipient: r1,
    lockTag: OTHER_ALLOCATOR_TAG,
  });
  expect(foreign.json.message).toMatch(/is not allocated by this allocator/);
});

test("the spec's wire types: integer amounts on both routes, exact only, and the decimal strings too", async () => {
  const account = await funded({ [BASE_USDC]: '100000000' });
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  // The spec's example as a client written from it sends it: `amount` integer (int64).
  const single = await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: 40000000, recipient });
  expect(single.status).toBe(200);
  expect(parseExact(single.text).transferDetails.recipients).toEqual([
    { claimant: BigInt(recipient).toString(), amount: '40000000' },
  ]);
  const batch = await call(api, 'POST', '/batch-withdrawals', {
    body: { account, chainId: 8453, transfers: [{ recipient, tokenAddress: BASE_USDC, amount: 1000000 }] },
  });
  expect(batch.status).toBe(200);
  expect(await reservedFor(api, account)).toBe(41_000_000n);
  const refused = async (amount: unknown) => {
    const res = await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount, recipient });
    expect(res.status).toBe(400);
    return res.json.message as string;
  };
  // Past 2^53 a JSON number has lost digits: refused, saying how to send it.
  expect(await refused(2 ** 53)).toBe(
    'body.amount is a JSON number past 2^53, which loses digits when parsed: send it as a decimal string',
  );
  expect(await refused(0)).toBe('body.amount must be >= 1');
  expect(await refused(-1)).toBe('body.amount must be >= 1');
  expect(await refused(1.5)).toBe('body.amount must be string or integer');
  expect(await refused((2n ** 256n).toString())).toMatch(/^body\.amount must /);
  expect(await reservedFor(api, account)).toBe(41_000_000n);
});

test('bad inputs get clear 4xx bodies and change nothing', async () => {
  const account = await funded({ [BASE_USDC]: '1000' });
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '0', recipient }, /^body\.amount must match pattern/],
    [
      { account, chainId: 8453, tokenAddress: BASE_USDC, amount: '1', recipient: '0x1234' },
      /body\.recipient must match pattern/,
    ],
    [{ account, chainId: 424242, tokenAddress: BASE_USDC, amount: '1', recipient }, /^Unsupported chain 424242$/],
    [{ account, chainId: 8453, tokenAddress: ARB_USDC, amount: '1', recipient }, /not supported on chain 8453/],
    [{ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '1001', recipient }, /^Insufficient balance$/],
    [{ account, chainId: 8453, tokenAddress: BASE_USDC, amount: -5, recipient }, /body\.amount/],
    [{ account, chainId: 8453, tokenAddress: BASE_USDC, amount: 1e30, recipient }, /body\.amount .*decimal string/], // not exact
  ];
  for (const [body, message] of cases) {
    const res = await withdraw(body);
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(message);
  }
  expect(await reservedFor(api, account)).toBe(0n);
  expect(
    (await api.db.query('SELECT count(*) AS n FROM withdrawals WHERE account = $1', [account.toLowerCase()]))[0].n,
  ).toBe('0');
});

test('a pending or enabled forced withdrawal stops allocation of that lock', async () => {
  const account = await funded({ [BASE_USDC]: '1000' });
  const forced = (status: string) =>
    ingest(api, [
      {
        id: eventId(),
        type: 'forced-withdrawal',
        chainId: 8453,
        account,
        lockId: lockId(BASE_USDC).toString(),
        status,
      },
    ]);
  await forced('pending');
  const res = await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '1', recipient: account });
  expect(res.status).toBe(400);
  expect(res.json.message).toMatch(/forced withdrawal is pending/);
  await forced('disabled');
  expect(
    (await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '1', recipient: account })).status,
  ).toBe(200);
});

const withdrawalStatus = async (nonce: string) =>
  (await api.db.query('SELECT status FROM withdrawals WHERE nonce = $1', [nonce]))[0].status;
const snapshot = (account: string, block: number, locked: string, blockTimestamp?: number) =>
  ingest(api, [lockedSnapshot(account, locked, { blockNumber: String(block), blockTimestamp })]);

test('expiry releases the reservation once a snapshot at or after `expires` arrives; a reported claim releases it and the nonce is never handed out again', async () => {
  const account = await funded({ [BASE_USDC]: '1000' });
  const first = parseExact(
    (await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '600', recipient: account })).text,
  ).transferDetails;
  expect(
    (await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '600', recipient: account })).json
      .message,
  ).toBe('Insufficient balance');
  await waitFor('EXPIRED', async () => (await withdrawalStatus(first.nonce)) === 'EXPIRED', 20_000); // WITHDRAWAL_EXPIRY_SECONDS=4 in tests
  expect(await reservedFor(api, account)).toBe(600n);
  await snapshot(account, blockAt(Number(first.expires)), '1000', Number(first.expires));
  expect(await reservedFor(api, account)).toBe(0n);

  const second = parseExact(
    (await withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '600', recipient: account })).text,
  ).transferDetails;
  expect(second.nonce).not.toBe(first.nonce);
  await ingest(api, [
    {
      id: `w-claim-${second.nonce}`,
      type: 'claim',
      chainId: 8453,
      nonce: second.nonce,
      transactionHash: `0x${'ab'.repeat(32)}`,
      timestamp: 1,
    },
  ]);
  await waitFor('CLAIMED', async () => (await withdrawalStatus(second.nonce)) === 'CLAIMED', 20_000);
  // Released once the indexer's next snapshot shows the transfer, not before.
  expect(await reservedFor(api, account)).toBe(600n);
  await ingest(api, [lockedSnapshot(account, '400', { blockNumber: blockAt(Number(first.expires)) + 1 })]);
  expect(await reservedFor(api, account)).toBe(0n);
  expect((await api.db.query('SELECT purpose FROM allocator_nonces WHERE nonce = $1', [second.nonce]))[0].purpose).toBe(
    'withdrawal',
  );
});

test('21.2 at `expires` the funds stay reserved until a snapshot at or after it; a claim mined just before, reported late, is recorded and spends them', async () => {
  const withdraw600 = (account: string) =>
    withdraw({ account, chainId: 8453, tokenAddress: BASE_USDC, amount: '600', recipient: account });
  const [unclaimed, claimed] = [await funded({ [BASE_USDC]: '1000' }), await funded({ [BASE_USDC]: '1000' })];
  const [a, b] = [
    parseExact((await withdraw600(unclaimed)).text).transferDetails,
    parseExact((await withdraw600(claimed)).text).transferDetails,
  ];
  await waitFor(
    'both EXPIRED',
    async () => (await withdrawalStatus(a.nonce)) === 'EXPIRED' && (await withdrawalStatus(b.nonce)) === 'EXPIRED',
    20_000,
  );
  const expiresA = Number(a.expires);

  // The stored snapshot (block 1) may predate a claim mined in the last block before `expires`: nothing is re-allocated.
  expect((await withdraw600(unclaimed)).json.message).toBe('Insufficient balance');
  await snapshot(unclaimed, 2, '1000'); // no block timestamp: releases nothing
  await snapshot(unclaimed, blockAt(expiresA - 1), '1000', expiresA - 1); // still a block a claim could be in
  expect((await withdraw600(unclaimed)).json.message).toBe('Insufficient balance');
  await snapshot(unclaimed, blockAt(expiresA), '1000', expiresA); // at `expires`: the balance shows every claim there can be
  expect(await reservedFor(api, unclaimed)).toBe(0n);
  expect((await withdraw600(unclaimed)).status).toBe(200);

  // The claim of block 5 (before `expires`) arrives after the hold ended: recorded, and the funds go with the claim.
  expect((await withdraw600(claimed)).json.message).toBe('Insufficient balance');
  const late = await ingest(api, [
    {
      id: `w-late-claim-${b.nonce}`,
      type: 'claim',
      chainId: 8453,
      nonce: b.nonce,
      transactionHash: `0x${'cd'.repeat(32)}`,
      timestamp: Number(b.expires) - 1,
      blockNumber: '5',
    },
  ]);
  expect(late.status).toBe(200);
  expect(await withdrawalStatus(b.nonce)).toBe('CLAIMED');
  expect(await reservedFor(api, claimed)).toBe(600n);
  await snapshot(claimed, 5, '400'); // the claim's block: shows the transfer
  expect(await reservedFor(api, claimed)).toBe(0n);
  expect((await withdraw600(claimed)).json.message).toBe('Insufficient balance');
  expect(
    (await withdraw({ account: claimed, chainId: 8453, tokenAddress: BASE_USDC, amount: '400', recipient: claimed }))
      .status,
  ).toBe(200);
}, 30_000);

test('21.2 a block timestamp in milliseconds is refused, not taken as a far future that releases everything', async () => {
  const account = await funded({ [BASE_USDC]: '1000' });
  const res = await snapshot(account, 2, '1000', Date.now());
  expect(res.status).toBe(400);
});

test('property: concurrent withdrawals and intent submits over one balance never over-reserve; nonces are unique', async () => {
  for (let round = 0; round < 3; round++) {
    const signer = privateKeyToAccount(generatePrivateKey());
    const balance = 10_000_000n + BigInt(Math.floor(Math.random() * 5_000_000));
    await ingest(api, [lockedSnapshot(signer.address, balance.toString())]);
    await proveAccount(api.db.manager, api.projectId, signer.address, 'operator');
    const intents = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const route = await call(api, 'POST', '/intents/route', {
          body: {
            account: { address: signer.address, accountType: 'EOA' },
            destinationChainId: 42161,
            tokenRequests: [{ tokenAddress: ARB_USDC, amount: '2500000' }],
          },
        });
        const sig = await signer.signTypedData(getCompactTypedData(route.json.intentOp));
        return { ...route.json.intentOp, originSignatures: [sig], destinationSignature: sig };
      }),
    );
    const amounts = Array.from({ length: 8 }, () => 500_000 + Math.floor(Math.random() * 2_000_000));
    const results = await Promise.all([
      ...intents.map((op) => call(api, 'POST', '/intent-operations', { body: { signedIntentOp: op } })),
      ...amounts.map((amount) =>
        withdraw({
          account: signer.address,
          chainId: 8453,
          tokenAddress: BASE_USDC,
          amount: String(amount),
          recipient: signer.address,
        }),
      ),
    ]);
    for (const r of results) expect([200, 201, 400]).toContain(r.status);
    expect(results.filter((r) => r.status === 400).every((r) => r.json.message === 'Insufficient balance')).toBe(true);
    expect(await reservedFor(api, signer.address)).toBeLessThanOrEqual(balance);
    expect(results.some((r) => r.status === 200)).toBe(true);
    const nonces = results
      .filter((r) => r.status === 200)
      .map((r) => parseExact(r.text).transferDetails.nonce as string);
    const intentIds = results.filter((r) => r.status === 201).map((r) => r.json.result.id as string);
    expect(new Set([...nonces, ...intentIds]).size).toBe(nonces.length + intentIds.length);
  }
}, 60_000);
