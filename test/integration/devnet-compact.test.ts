import {
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  hashStruct,
  hashTypedData,
  parseEventLogs,
  zeroHash,
  type Abi,
  type Hex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import artifacts from '../../solidity/artifacts.json';
import { lockTagFor } from '../../src/chains/lock-tag';
import { batchCompactAuthorization, compactAuthorization, compactDomain } from '../../src/compact/eip712';
import { members } from '../../src/signatures/eip712-members';
import { compactClaimPayload } from '../../src/relayer-bot/claim-payload';
import { authorizeClaim, type CompactClaim } from '../../src/intents/claim-authorization';
import { tokenId } from '../../src/intents/quote';
import { compactTypedData } from '../../src/intents/typed-data';
import type { Element, IntentOp } from '../../src/intents/types';
import { claimDigest, claimHashOf } from '../support/compact-claim';
import { deployContract, startIndexedChain, type IndexedChain } from '../support/indexed-chain';
import { BASE_USDC, DESTINATION_OP, testElement } from '../support/test-element';

/**
 * solidity/DevnetCompact.sol with a SignerAllocator on anvil: real deposits, and claims built the way the service
 * and the published client build them (the sponsor signs compactTypedData, the service's authorizeClaim signs
 * allocatorData and derives witness and additionalChains), checked against the claim hash rebuilt by hand
 * (test/support/compact-claim.ts). Each refusal reverts with its own error; a changed mandate and a caller other than
 * the arbiter fail the sponsor's signature, whose error names the claim hash the contract rebuilt.
 */
const abi = artifacts.DevnetCompact.abi as Abi;
// anvil's second default dev account, funded on every fresh chain: the elements' arbiter.
const arbiter = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const allocatorKey = privateKeyToAccount(generatePrivateKey());
const OTHER_CHAIN = 10;
const LOCK_MEMBERS = 'bytes12 lockTag,address token,uint256 amount';

let chain: IndexedChain;
let chainId: number;
let compact: Hex;
let allocator: Hex;
let usdc: Hex;
let weth: Hex;
let lockTag: Hex;
let id: bigint;
let wethId: bigint;
let nonce = 1n;

beforeAll(async () => {
  chain = await startIndexedChain(31337);
  chainId = await chain.public.getChainId();
  compact = await deployContract(chain, 'DevnetCompact');
  allocator = getAddress(await deployContract(chain, 'SignerAllocator', [allocatorKey.address, compact]));
  await chain.send(compact, 'DevnetCompact', '__registerAllocator', [allocator, '0x']);
  usdc = await deployContract(chain, 'TestToken', ['Test USD', 'TUSD', 6]);
  weth = await deployContract(chain, 'TestToken', ['Test ETH', 'TETH', 18]);
  lockTag = lockTagFor(allocator, 0, 6);
  id = BigInt(tokenId(lockTag, usdc));
  wethId = BigInt(tokenId(lockTag, weth));
});
afterAll(() => chain?.local.stop());

const read = (functionName: string, args: unknown[], address = compact, contract: Abi = abi) =>
  chain.public.readContract({ address, abi: contract, functionName, args }) as Promise<unknown>;
const lockBalance = (owner: Hex, lock = id) => read('balanceOf', [owner, lock]) as Promise<bigint>;
const tokenBalance = (owner: Hex, token = usdc) =>
  read('balanceOf', [owner], token, artifacts.TestToken.abi as Abi) as Promise<bigint>;
const now = async () => (await chain.public.getBlock()).timestamp;

/** The custom error (name and arguments) a call from `from` reverts with. */
async function revertOf(
  functionName: string,
  args: unknown[],
  from: Hex,
): Promise<[] | [string | undefined, readonly unknown[]]> {
  try {
    await chain.public.simulateContract({ account: from, address: compact, abi, functionName, args });
  } catch (err) {
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return [reverted.data?.errorName, reverted.data?.args ?? []];
    throw err;
  }
  return [];
}

/** Mints `amount` of `token` to `owner` and deposits it into the lock (tag, token) for `recipient`. */
async function deposit(owner: Hex, amount: bigint, recipient = owner, tag = lockTag, token = usdc): Promise<Hex> {
  await chain.send(token, 'TestToken', 'mint', [owner, amount]);
  await chain.send(token, 'TestToken', 'approve', [compact, amount], owner);
  return chain.send(compact, 'DevnetCompact', 'depositERC20', [token, tag, amount, recipient], owner);
}

function element(
  elementChainId: number,
  amount: bigint,
  recipient = '0x1111111111111111111111111111111111111111',
): Element {
  return testElement({
    arbiter: arbiter.address,
    chainId: elementChainId,
    idsAndAmounts: [[id.toString(), amount.toString()]],
    fundingMethod: 'COMPACT',
    tokenOut: [[tokenId(lockTag, BASE_USDC), '990000']],
    recipient,
    destinationOps: [DESTINATION_OP],
  });
}

/** An intent of `sponsor` with an element on each chain of `chains` (the first notarized), `amount` from each. */
async function intent(sponsor: Hex, chains: number[], amount: bigint, expiresIn = 3600n): Promise<IntentOp> {
  return {
    sponsor,
    nonce: String(nonce++),
    targetExecutionNonce: '0',
    expires: String((await now()) + expiresIn),
    elements: chains.map((c) => element(c, amount)),
    serverSignature: '0x',
    signedMetadata: {},
  };
}

/** What the service answers a relayer for the element on this chain, with the sponsor's signature over the intent. */
async function authorized(op: IntentOp, signature: Hex): Promise<CompactClaim> {
  const auth = await authorizeClaim(
    {
      id: op.nonce,
      operation: op,
      signatures: { originSignatures: op.elements.map(() => signature), destinationSignature: signature },
      expired: false,
      heldChainIds: op.elements.map((e) => Number(e.chainId)),
      fill: null,
    },
    { compact, allocator: allocatorKey },
  );
  return auth.elements.find((e) => e.chainId === chainId) as CompactClaim;
}

/** The claim payload the relayer submits for this chain's element, paying `claimants` ([claimant, amount]). */
function payload(
  op: IntentOp,
  c: CompactClaim,
  claimants: [bigint, bigint][],
  overrides: Record<string, unknown> = {},
) {
  return {
    ...compactClaimPayload(op, c, () => claimants.map(([claimant, amount]) => ({ claimant, amount }))),
    ...overrides,
  };
}

/** A claimant that receives the ERC-6909 balance (the lock's own tag), or the token itself (tag 0). */
const asLock = (recipient: Hex) => (BigInt(lockTag) << 160n) | BigInt(recipient);
const asToken = (recipient: Hex) => BigInt(recipient);

const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

async function claimEvents(hash: Hex) {
  const { logs } = await chain.public.getTransactionReceipt({ hash });
  return parseEventLogs({ abi, logs });
}

test('a deposit takes the tokens and mints the lock to the recipient; an unregistered allocator takes none', async () => {
  const owner = freshAddress();
  const recipient = freshAddress();
  const held = await tokenBalance(compact);
  const hash = await deposit(owner, 5_000_000n, recipient);
  expect(await lockBalance(recipient)).toBe(5_000_000n);
  expect(await lockBalance(owner)).toBe(0n);
  expect(await tokenBalance(owner)).toBe(0n);
  expect((await tokenBalance(compact)) - held).toBe(5_000_000n);
  expect(
    (await claimEvents(hash)).map((e) => [
      e.eventName,
      (e.args as Record<string, unknown>).to,
      (e.args as Record<string, unknown>).amount,
    ]),
  ).toEqual([['Transfer', recipient, 5_000_000n]]);

  await chain.send(usdc, 'TestToken', 'mint', [owner, 1n]);
  await chain.send(usdc, 'TestToken', 'approve', [compact, 1n], owner);
  const unregistered = lockTagFor(freshAddress(), 0, 6);
  expect(await revertOf('depositERC20', [usdc, unregistered, 1n, owner], owner)).toEqual([
    'NoAllocatorRegistered',
    [BigInt(unregistered) & ((1n << 92n) - 1n)],
  ]);
  // Registering someone else's key needs a proof: only the allocator itself, a contract, or a CREATE2 proof.
  expect(await revertOf('__registerAllocator', [freshAddress(), '0x'], owner)).toEqual([
    'InvalidRegistrationProof',
    [expect.any(String)],
  ]);
});

test('multichainClaim on the notarized chain pays the claimants as the arbiter asks, emits Claim and spends the nonce; each refusal names its cause', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await deposit(sponsor.address, 3_000_000n);
  const op = await intent(sponsor.address, [chainId, OTHER_CHAIN], 2_000_000n);
  const signature = await sponsor.signTypedData(compactTypedData(op, compact));
  const c = await authorized(op, signature);
  expect(c.claim).toBe('multichainClaim');
  const claimHash = claimHashOf(op);
  const filler = freshAddress();
  const paid: [bigint, bigint][] = [
    [asLock(filler), 1_500_000n],
    [asToken(filler), 500_000n],
  ];
  const call = (overrides: Record<string, unknown> = {}, from: Hex = arbiter.address) =>
    revertOf('multichainClaim', [payload(op, c, paid, overrides)], from);

  // Valid as it is (the refusals below differ from it in one thing each).
  expect(await call()).toEqual([]);
  // Another mandate: the sponsor signed another claim hash (the one rebuilt with the changed witness is reported).
  const changed = { ...op, elements: [element(chainId, 2_000_000n, filler), op.elements[1]] };
  const changedWitness = (await authorized(changed, signature)).witness;
  expect(changedWitness).not.toBe(c.witness);
  expect(await call({ witness: changedWitness })).toEqual([
    'InvalidSponsorSignature',
    [sponsor.address, claimHashOf(changed)],
  ]);
  // Signed by another key.
  const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData(compactTypedData(op, compact));
  expect(await call({ sponsorSignature: forged })).toEqual(['InvalidSponsorSignature', [sponsor.address, claimHash]]);
  // Not from the arbiter: the claim is rebuilt with the caller as arbiter, which the sponsor never signed.
  const stranger = freshAddress();
  const asStranger = { ...op, elements: op.elements.map((e, i) => (i === 0 ? { ...e, arbiter: stranger } : e)) };
  expect(await call({}, stranger)).toEqual(['InvalidSponsorSignature', [sponsor.address, claimHashOf(asStranger)]]);
  // Allocator data missing, by another key, or the other chain's (its digest names chain 10's domain).
  const otherChain = (
    await authorizeClaim(
      {
        id: op.nonce,
        operation: op,
        signatures: { originSignatures: [signature, signature], destinationSignature: signature },
        expired: false,
        heldChainIds: [OTHER_CHAIN],
        fill: null,
      },
      { compact, allocator: allocatorKey },
    )
  ).elements[1].allocatorData;
  for (const allocatorData of [
    '0x',
    await privateKeyToAccount(generatePrivateKey()).sign({ hash: claimDigest(claimHash, chainId, compact) }),
    otherChain,
  ]) {
    expect(await call({ allocatorData })).toEqual(['InvalidAllocation', [allocator]]);
  }
  // More than the element allocated.
  expect(await call({ claimants: [{ claimant: asLock(filler), amount: 2_000_001n }] })).toEqual([
    'AllocatedAmountExceeded',
    [2_000_000n, 2_000_001n],
  ]);

  expect(await read('hasConsumedAllocatorNonce', [BigInt(op.nonce), allocator])).toBe(false);
  const held = await tokenBalance(compact);
  const hash = await chain.send(compact, 'DevnetCompact', 'multichainClaim', [payload(op, c, paid)], arbiter.address);
  expect(await lockBalance(sponsor.address)).toBe(1_000_000n);
  expect(await lockBalance(filler)).toBe(1_500_000n);
  expect(await tokenBalance(filler)).toBe(500_000n);
  expect(held - (await tokenBalance(compact))).toBe(500_000n);
  expect(await read('hasConsumedAllocatorNonce', [BigInt(op.nonce), allocator])).toBe(true);
  const events = await claimEvents(hash);
  expect(events.map((e) => [e.eventName, e.args])).toEqual([
    ['Claim', { sponsor: sponsor.address, allocator, arbiter: arbiter.address, claimHash, nonce: BigInt(op.nonce) }],
    ['Transfer', { by: arbiter.address, from: sponsor.address, to: filler, id, amount: 1_500_000n }],
    [
      'Transfer',
      {
        by: arbiter.address,
        from: sponsor.address,
        to: '0x0000000000000000000000000000000000000000',
        id,
        amount: 500_000n,
      },
    ],
  ]);

  // Once claimed, the same claim is refused: its nonce is spent.
  expect(await call()).toEqual(['InvalidNonce', [allocator, BigInt(op.nonce)]]);
});

test('exogenousClaim on a chain after the notarized one: the sponsor signed in the notarized domain, the element goes after additionalChains[chainIndex]', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await deposit(sponsor.address, 1_000_000n);
  const op = await intent(sponsor.address, [OTHER_CHAIN, chainId], 1_000_000n);
  const signature = await sponsor.signTypedData(compactTypedData(op, compact));
  const c = await authorized(op, signature);
  expect([c.claim, c.notarizedChainId]).toEqual(['exogenousClaim', OTHER_CHAIN]);
  const filler = freshAddress();
  const paid: [bigint, bigint][] = [[asToken(filler), 1_000_000n]];
  const call = (overrides: Record<string, unknown> = {}) =>
    revertOf('exogenousClaim', [payload(op, c, paid, overrides)], arbiter.address);

  expect(await call({ chainIndex: 1n })).toEqual(['ChainIndexOutOfRange', []]);
  // Another chain's signature cannot spend a chain-specific lock.
  const chainSpecific = BigInt(tokenId(lockTagFor(allocator, 1, 6), usdc));
  expect(await call({ id: chainSpecific })).toEqual(['InvalidScope', [chainSpecific]]);
  // Signed in this chain's domain rather than the notarized one.
  const here = await sponsor.signTypedData({
    ...compactTypedData(op, compact),
    domain: { name: 'The Compact', version: '1', chainId, verifyingContract: compact },
  });
  expect(await call({ sponsorSignature: here })).toEqual([
    'InvalidSponsorSignature',
    [sponsor.address, claimHashOf(op)],
  ]);
  expect(await call({ notarizedChainId: BigInt(chainId) })).toEqual([
    'InvalidSponsorSignature',
    [sponsor.address, claimHashOf(op)],
  ]);

  const hash = await chain.send(compact, 'DevnetCompact', 'exogenousClaim', [payload(op, c, paid)], arbiter.address);
  expect(await tokenBalance(filler)).toBe(1_000_000n);
  expect(await lockBalance(sponsor.address)).toBe(0n);
  expect((await claimEvents(hash))[0].args).toEqual({
    sponsor: sponsor.address,
    allocator,
    arbiter: arbiter.address,
    claimHash: claimHashOf(op),
    nonce: BigInt(op.nonce),
  });
});

test('a contract sponsor (ERC-1271) authorizes a claim with its signer key; another key does not', async () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  const account = getAddress(await deployContract(chain, 'DepositAccount', [owner.address, []]));
  await deposit(chain.sender.address, 1_000_000n, account);
  const op = await intent(account, [chainId], 1_000_000n);
  const claimHash = claimHashOf(op);
  // DepositAccount checks a plain signature over the digest itself.
  const signature = await owner.sign({ hash: claimDigest(claimHash, chainId, compact) });
  const c = await authorized(op, signature);
  const filler = freshAddress();
  const paid: [bigint, bigint][] = [[asLock(filler), 1_000_000n]];
  const other = await privateKeyToAccount(generatePrivateKey()).sign({
    hash: claimDigest(claimHash, chainId, compact),
  });
  expect(
    await revertOf('multichainClaim', [payload(op, c, paid, { sponsorSignature: other })], arbiter.address),
  ).toEqual(['InvalidSponsorSignature', [account, claimHash]]);
  await chain.send(compact, 'DevnetCompact', 'multichainClaim', [payload(op, c, paid)], arbiter.address);
  expect(await lockBalance(filler)).toBe(1_000_000n);
  expect(await lockBalance(account)).toBe(0n);
});

test('allocatedTransfer withdraws what the allocator signed as the service signs withdrawals, once', async () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  await deposit(owner.address, 2_000_000n);
  const recipient = freshAddress();
  const withdrawalNonce = nonce++;
  const expires = (await now()) + 600n;
  const allocatorData = await allocatorKey.signTypedData(
    compactAuthorization(chainId, compact, owner.address, withdrawalNonce, expires, {
      lockTag,
      token: usdc,
      amount: 1_200_000n,
    }),
  );
  const transfer = (amount: bigint, overrides: Record<string, unknown> = {}) => ({
    allocatorData,
    nonce: withdrawalNonce,
    expires,
    id,
    recipients: [{ claimant: asToken(recipient), amount }],
    ...overrides,
  });
  expect(await revertOf('allocatedTransfer', [transfer(1_200_001n)], owner.address)).toEqual([
    'InvalidAllocation',
    [allocator],
  ]);
  // Only the account itself: from another caller the Compact rebuilt is another one.
  expect(await revertOf('allocatedTransfer', [transfer(1_200_000n)], freshAddress())).toEqual([
    'InvalidAllocation',
    [allocator],
  ]);
  const hash = await chain.send(compact, 'DevnetCompact', 'allocatedTransfer', [transfer(1_200_000n)], owner.address);
  expect(await tokenBalance(recipient)).toBe(1_200_000n);
  expect(await lockBalance(owner.address)).toBe(800_000n);
  expect((await claimEvents(hash)).map((e) => e.eventName)).toEqual(['Claim', 'Transfer']);
  expect(await revertOf('allocatedTransfer', [transfer(1_200_000n)], owner.address)).toEqual([
    'InvalidNonce',
    [allocator, withdrawalNonce],
  ]);
});

test('batchMultichainClaim spends each lock of an element; a claimant may take its share into another lock of the allocator', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await deposit(sponsor.address, 1_000_000n);
  await deposit(sponsor.address, 10n ** 16n, sponsor.address, lockTag, weth);
  const op = await intent(sponsor.address, [chainId, OTHER_CHAIN], 1_000_000n);
  const locks: [string, string][] = [
    [id.toString(), '1000000'],
    [wethId.toString(), (10n ** 16n).toString()],
  ];
  op.elements[0] = { ...op.elements[0], idsAndAmounts: locks, spendTokens: locks };
  const c = await authorized(op, await sponsor.signTypedData(compactTypedData(op, compact)));
  // The service names the batch form for an element of more than one lock; the contract's answer proves it right.
  expect(c.claim).toBe('batchMultichainClaim');
  const filler = freshAddress();
  const shortTag = lockTagFor(allocator, 0, 0);
  const claims = [
    { id, allocatedAmount: 1_000_000n, portions: [{ claimant: asLock(filler), amount: 1_000_000n }] },
    {
      id: wethId,
      allocatedAmount: 10n ** 16n,
      portions: [{ claimant: (BigInt(shortTag) << 160n) | BigInt(filler), amount: 10n ** 16n }],
    },
  ];
  // The shared builder gives each lock a component in the element's order, with the portions asked for.
  const built = compactClaimPayload(op, c, (lockId) => claims.find((x) => x.id === lockId)!.portions);
  expect(built.claims).toEqual(claims);
  const args = (overrides: Record<string, unknown> = {}) => [{ ...built, ...overrides }];
  // The locks are an ordered list in what the sponsor signed.
  const swapped = { ...op, elements: [{ ...op.elements[0], idsAndAmounts: [locks[1], locks[0]] }, op.elements[1]] };
  expect(await revertOf('batchMultichainClaim', args({ claims: [claims[1], claims[0]] }), arbiter.address)).toEqual([
    'InvalidSponsorSignature',
    [sponsor.address, claimHashOf(swapped)],
  ]);

  const hash = await chain.send(compact, 'DevnetCompact', 'batchMultichainClaim', args(), arbiter.address);
  expect(await lockBalance(filler)).toBe(1_000_000n);
  expect(await lockBalance(filler, BigInt(tokenId(shortTag, weth)))).toBe(10n ** 16n);
  expect(await lockBalance(filler, wethId)).toBe(0n);
  expect([await lockBalance(sponsor.address), await lockBalance(sponsor.address, wethId)]).toEqual([0n, 0n]);
  expect((await claimEvents(hash))[0].args).toMatchObject({ claimHash: claimHashOf(op), nonce: BigInt(op.nonce) });
});

test('allocatedBatchTransfer withdraws several locks as the service signs a batch withdrawal (a BatchCompact)', async () => {
  const owner = privateKeyToAccount(generatePrivateKey());
  await deposit(owner.address, 300_000n);
  await deposit(owner.address, 5n, owner.address, lockTag, weth);
  const recipient = freshAddress();
  const withdrawalNonce = nonce++;
  const expires = (await now()) + 600n;
  const allocatorData = await allocatorKey.signTypedData(
    batchCompactAuthorization(chainId, compact, owner.address, withdrawalNonce, expires, [
      { lockTag, token: usdc, amount: 300_000n },
      { lockTag, token: weth, amount: 5n },
    ]),
  );
  const transfers = [
    { id, portions: [{ claimant: asToken(recipient), amount: 300_000n }] },
    { id: wethId, portions: [{ claimant: asToken(recipient), amount: 5n }] },
  ];
  const transfer = (t = transfers) => [{ allocatorData, nonce: withdrawalNonce, expires, transfers: t }];
  expect(await revertOf('allocatedBatchTransfer', transfer([transfers[1], transfers[0]]), owner.address)).toEqual([
    'InvalidAllocation',
    [allocator],
  ]);
  await chain.send(compact, 'DevnetCompact', 'allocatedBatchTransfer', transfer(), owner.address);
  expect([await tokenBalance(recipient), await tokenBalance(recipient, weth)]).toEqual([300_000n, 5n]);
  expect([await lockBalance(owner.address), await lockBalance(owner.address, wethId)]).toEqual([0n, 0n]);
});

test("a forced withdrawal completes without the allocator, only once the lock's reset period passed", async () => {
  const owner = freshAddress();
  const shortTag = lockTagFor(allocator, 0, 1); // a reset period of 15 s
  const shortId = BigInt(tokenId(shortTag, usdc));
  await deposit(owner, 1_000n, owner, shortTag);
  const premature = ['PrematureWithdrawal', [shortId]];
  expect(await revertOf('forcedWithdrawal', [shortId, owner, 1_000n], owner)).toEqual(premature);
  const hash = await chain.send(compact, 'DevnetCompact', 'enableForcedWithdrawal', [shortId], owner);
  expect((await claimEvents(hash))[0].args).toEqual({
    account: owner,
    id: shortId,
    activating: true,
    withdrawableAt: (await now()) + 15n,
  });
  expect(await revertOf('forcedWithdrawal', [shortId, owner, 1_000n], owner)).toEqual(premature);
  await chain.test.increaseTime({ seconds: 20 });
  await chain.test.mine({ blocks: 1 });
  await chain.send(compact, 'DevnetCompact', 'forcedWithdrawal', [shortId, owner, 1_000n], owner);
  expect([await tokenBalance(owner), await lockBalance(owner, shortId)]).toEqual([1_000n, 0n]);
});

test('claim and batchClaim settle single-chain compacts without a witness, signed as EIP-712 Compact and BatchCompact', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await deposit(sponsor.address, 700_000n);
  await deposit(sponsor.address, 9n, sponsor.address, lockTag, weth);
  const expires = (await now()) + 600n;
  const domain = compactDomain(chainId, compact);
  const lock = (token: Hex, amount: bigint) => ({ lockTag, token, amount });
  const filler = freshAddress();

  const single = {
    domain,
    types: { Compact: members('address arbiter,address sponsor,uint256 nonce,uint256 expires,' + LOCK_MEMBERS) },
    primaryType: 'Compact' as const,
    message: { arbiter: arbiter.address, sponsor: sponsor.address, nonce: nonce++, expires, ...lock(usdc, 400_000n) },
  };
  const claimArgs = async (signature: Hex) => [
    {
      allocatorData: await allocatorKey.sign({ hash: hashTypedData(single) }),
      sponsorSignature: signature,
      sponsor: sponsor.address,
      nonce: single.message.nonce,
      expires,
      witness: zeroHash,
      witnessTypestring: '',
      id,
      allocatedAmount: 400_000n,
      claimants: [{ claimant: asToken(filler), amount: 400_000n }],
    },
  ];
  const otherSigner = privateKeyToAccount(generatePrivateKey());
  expect(await revertOf('claim', await claimArgs(await otherSigner.signTypedData(single)), arbiter.address)).toEqual([
    'InvalidSponsorSignature',
    [sponsor.address, hashStruct({ types: single.types, primaryType: 'Compact', data: single.message })],
  ]);
  await chain.send(
    compact,
    'DevnetCompact',
    'claim',
    await claimArgs(await sponsor.signTypedData(single)),
    arbiter.address,
  );
  expect(await tokenBalance(filler)).toBe(400_000n);

  const batch = {
    domain,
    types: {
      BatchCompact: members('address arbiter,address sponsor,uint256 nonce,uint256 expires,Lock[] commitments'),
      Lock: members(LOCK_MEMBERS),
    },
    primaryType: 'BatchCompact' as const,
    message: {
      arbiter: arbiter.address,
      sponsor: sponsor.address,
      nonce: nonce++,
      expires,
      commitments: [lock(usdc, 300_000n), lock(weth, 9n)],
    },
  };
  await chain.send(
    compact,
    'DevnetCompact',
    'batchClaim',
    [
      {
        allocatorData: await allocatorKey.sign({ hash: hashTypedData(batch) }),
        sponsorSignature: await sponsor.signTypedData(batch),
        sponsor: sponsor.address,
        nonce: batch.message.nonce,
        expires,
        witness: zeroHash,
        witnessTypestring: '',
        claims: [
          { id, allocatedAmount: 300_000n, portions: [{ claimant: asLock(filler), amount: 300_000n }] },
          { id: wethId, allocatedAmount: 9n, portions: [{ claimant: asToken(filler), amount: 9n }] },
        ],
      },
    ],
    arbiter.address,
  );
  expect([await lockBalance(filler), await tokenBalance(filler, weth)]).toEqual([300_000n, 9n]);
  expect([await lockBalance(sponsor.address), await lockBalance(sponsor.address, wethId)]).toEqual([0n, 0n]);
});

test('a claim is refused once `expires` passed', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await deposit(sponsor.address, 1_000_000n);
  const op = await intent(sponsor.address, [chainId], 1_000_000n, 60n);
  const c = await authorized(op, await sponsor.signTypedData(compactTypedData(op, compact)));
  const args = [payload(op, c, [[asLock(freshAddress()), 1_000_000n]])];
  expect(await revertOf('multichainClaim', args, arbiter.address)).toEqual([]);
  await chain.test.increaseTime({ seconds: 120 });
  await chain.test.mine({ blocks: 1 });
  expect(await revertOf('multichainClaim', args, arbiter.address)).toEqual(['Expired', [BigInt(op.expires)]]);
});
