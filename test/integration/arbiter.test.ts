import {
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  hashStruct,
  hashTypedData,
  maxUint256,
  parseEventLogs,
  zeroHash,
  type Abi,
  type Hex,
  type TypedDataDefinition,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import artifacts from '../../solidity/artifacts.json';
import { lockTagFor } from '../../src/chains/lock-tag';
import { compactDomain } from '../../src/compact/eip712';
import { members } from '../../src/signatures/eip712-members';
import { compactClaimPayload } from '../../src/relayer-bot/claim-payload';
import {
  authorizeClaim,
  type ClaimSigners,
  type CompactClaim,
  type UnallocatedClaim,
} from '../../src/intents/claim-authorization';
import { attestFill, type FillAttestation } from '../../src/intents/fill-attestation';
import { permit2WitnessCall } from '../../src/intents/permit2-call';
import { tokenId } from '../../src/intents/quote';
import { compactTypedData, PERMIT2_ADDRESS, permit2TypedData } from '../../src/intents/typed-data';
import type { Element, IntentOp } from '../../src/intents/types';
import { claimHashOf } from '../support/compact-claim';
import {
  contractAt,
  deployContract,
  deposit,
  fundDeposits,
  startIndexedChain,
  type IndexedChain,
} from '../support/indexed-chain';
import { testElement } from '../support/test-element';

/**
 * solidity/IntentArbiter.sol between a relayer and DevnetCompact / our Permit2 on anvil: the service's claim
 * authorization carries its attestation of the relayer's fill (read from the fill transaction on chain), and the
 * arbiter claims for that relayer only, with that attestation only. The Compact takes the arbiter as the caller, so a
 * relayer cannot go around it.
 */
const ABI = [...artifacts.IntentArbiter.abi, ...artifacts.DevnetCompact.abi.filter((e) => e.type === 'error')] as Abi;
const allocatorKey = privateKeyToAccount(generatePrivateKey());
const attesterKey = privateKeyToAccount(generatePrivateKey());
const OTHER_CHAIN = 10;

let chain: IndexedChain;
let chainId: number;
let compact: Hex;
let allocator: Hex;
let arbiter: Hex;
let filler: Hex;
let usdc: Hex;
let lockTag: Hex;
let id: bigint;
let nonce = 1n;

beforeAll(async () => {
  chain = await startIndexedChain(31337);
  chainId = chain.chainId;
  compact = await deployContract(chain, 'DevnetCompact');
  allocator = getAddress(await deployContract(chain, 'SignerAllocator', [allocatorKey.address, compact]));
  await chain.send(compact, 'DevnetCompact', '__registerAllocator', [allocator, '0x']);
  await contractAt(chain, 'Permit2', PERMIT2_ADDRESS as Hex);
  arbiter = getAddress(await deployContract(chain, 'IntentArbiter', [compact, PERMIT2_ADDRESS, attesterKey.address]));
  filler = await deployContract(chain, 'Filler');
  usdc = await deployContract(chain, 'TestToken', ['Test USD', 'TUSD', 6]);
  await fundDeposits(chain, compact, usdc);
  lockTag = lockTagFor(allocator, 0, 6);
  id = BigInt(tokenId(lockTag, usdc));
});
afterAll(() => chain?.local.stop());

const signers = (attester = attesterKey): ClaimSigners => ({
  compact,
  allocator: allocatorKey,
  attester: {
    account: attester,
    arbiters: new Map([[chainId, arbiter]]),
    rpc: { client: (c) => (c === chainId ? chain.public : undefined) },
  },
});
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const balanceOf = (owner: Hex, token: Hex = usdc) =>
  chain.public.readContract({
    address: token,
    abi: artifacts.TestToken.abi as Abi,
    functionName: 'balanceOf',
    args: [owner],
  }) as Promise<bigint>;
const lockBalance = (owner: Hex) =>
  chain.public.readContract({
    address: compact,
    abi: artifacts.DevnetCompact.abi as Abi,
    functionName: 'balanceOf',
    args: [owner, id],
  }) as Promise<bigint>;

/** The custom error (name and arguments) a call from `from` reverts with, or [] when it would succeed. */
async function revertOf(address: Hex, functionName: string, args: unknown[], from: Hex, abi = ABI) {
  try {
    await chain.public.simulateContract({ account: from, address, abi, functionName, args });
  } catch (err) {
    const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return [reverted.data?.errorName, reverted.data?.args ?? []];
    throw err;
  }
  return [];
}

function element(elementChainId: number, amount: bigint, fundingMethod: 'COMPACT' | 'PERMIT2'): Element {
  return testElement({
    arbiter,
    chainId: elementChainId,
    idsAndAmounts: [[id.toString(), amount.toString()]],
    fundingMethod,
    tokenOut: [[tokenId('0x000000000000000000000000', usdc), '990000']],
    destinationChainId: chainId,
  });
}

/** The relayer pays the mandate's tokenOut through the Filler: the transaction the service attests. */
async function fill(op: IntentOp, relayer: Hex): Promise<Hex> {
  const { recipient, tokenOut } = op.elements[0].mandate;
  await chain.send(usdc, 'TestToken', 'mint', [relayer, 990_000n]);
  await chain.send(usdc, 'TestToken', 'approve', [filler, 990_000n], relayer);
  return chain.send(
    filler,
    'Filler',
    'fillTokenOut',
    [BigInt(op.nonce), recipient, tokenOut.map(([t, a]) => [BigInt(t), BigInt(a)])],
    relayer,
  );
}

async function intent(sponsor: Hex, funding: 'COMPACT' | 'PERMIT2', chains: number[]): Promise<IntentOp> {
  const { timestamp } = await chain.public.getBlock();
  return {
    sponsor,
    nonce: String(nonce++),
    targetExecutionNonce: '0',
    expires: String(timestamp + 3600n),
    elements: chains.map((c) => element(c, 2_000_000n, funding)),
    serverSignature: '0x',
    signedMetadata: {},
  };
}

const claimable = (op: IntentOp, signatures: Hex[], fillTx: Hex) => ({
  id: op.nonce,
  operation: op,
  signatures: { originSignatures: signatures, destinationSignature: signatures[0] },
  expired: false,
  heldChainIds: op.elements.map((e) => Number(e.chainId)),
  fill: { chainId, transactionHash: fillTx },
});

test('the arbiter claims a lock for the relayer the service attests, sent by it; another payee, sender, attester or claim is refused, and the relayer cannot go around it', async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await deposit(chain, compact, lockTag, usdc, sponsor.address, 2_000_000n);
  const op = await intent(sponsor.address, 'COMPACT', [chainId, OTHER_CHAIN]);
  const signature = await sponsor.signTypedData(compactTypedData(op, compact));
  const relayer = freshAddress();
  const fillTx = await fill(op, relayer);

  const auth = await authorizeClaim(claimable(op, [signature, signature], fillTx), signers());
  const c = auth.elements[0] as CompactClaim;
  const a = c.fillAttestation!;
  expect(c.arbiter).toBe(arbiter);
  expect(a).toMatchObject({ claimHash: claimHashOf(op), fillChainId: chainId, fillTransaction: fillTx, relayer });
  // No arbiter of ours is configured on the other chain: nothing is attested there.
  expect(auth.elements[1].fillAttestation).toBeNull();

  const toRelayer = (claimant: Hex) =>
    compactClaimPayload(op, c, (_, amount) => [{ claimant: BigInt(claimant), amount }]);
  const claim = (payload = toRelayer(relayer), attestation: FillAttestation = a) => {
    const { signature: attesterSignature, ...attested } = attestation;
    return [payload, attested, attesterSignature];
  };
  const viaArbiter = (args: unknown[], from = relayer) => revertOf(arbiter, 'multichainClaim', args, from);

  expect(await viaArbiter(claim())).toEqual([]);
  // Paying anyone but the attested relayer.
  const thief = freshAddress();
  expect(await viaArbiter(claim(toRelayer(thief)))).toEqual(['NotTheRelayer', [BigInt(thief), relayer]]);
  // An attestation signed by another key (the same fill, the same domain).
  const forger = privateKeyToAccount(generatePrivateKey());
  const forged = await attestFill(forger, { chainId, arbiter }, a);
  expect(await viaArbiter(claim(undefined, forged))).toEqual(['InvalidAttestation', [forger.address]]);
  // An attestation of another intent's claim.
  const other = await attestFill(attesterKey, { chainId, arbiter }, { ...a, claimHash: `0x${'ee'.repeat(32)}` });
  expect(await viaArbiter(claim(undefined, other))).toEqual([
    'AttestationOfAnotherClaim',
    [`0x${'ee'.repeat(32)}`, a.claimHash],
  ]);
  // Around the arbiter: The Compact rebuilds the claim with the caller as arbiter, which the sponsor never signed.
  const [direct] = await revertOf(
    compact,
    'multichainClaim',
    [toRelayer(relayer)],
    relayer,
    artifacts.DevnetCompact.abi as Abi,
  );
  expect(direct).toBe('InvalidSponsorSignature');

  // Sent by anyone but the relayer: refused, as it could spend the claim's nonce paying the relayer nothing.
  expect(await viaArbiter(claim(toRelayer(relayer)), thief)).toEqual(['CallerNotTheRelayer', [thief, relayer]]);

  const hash = await chain.send(arbiter, 'IntentArbiter', 'multichainClaim', claim(), relayer);
  expect(await balanceOf(relayer)).toBe(2_000_000n);
  expect(await lockBalance(sponsor.address)).toBe(0n);
  const { logs } = await chain.public.getTransactionReceipt({ hash });
  const [claimed] = parseEventLogs({ abi: artifacts.DevnetCompact.abi as Abi, logs, eventName: 'Claim' });
  expect(claimed.args).toMatchObject({ sponsor: sponsor.address, arbiter, claimHash: a.claimHash });
  // Once only: The Compact spent the nonce.
  expect(await viaArbiter(claim())).toEqual(['InvalidNonce', [allocator, BigInt(op.nonce)]]);
});

test("the arbiter pulls a Permit2-funded element to the attested relayer, as the spender the sponsor signed; another key's attestation is refused", async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await chain.send(usdc, 'TestToken', 'mint', [sponsor.address, 2_000_000n]);
  await chain.send(usdc, 'TestToken', 'approve', [PERMIT2_ADDRESS, maxUint256], sponsor.address);
  const op = await intent(sponsor.address, 'PERMIT2', [chainId]);
  const el = op.elements[0];
  const signature = await sponsor.signTypedData(permit2TypedData(el, op.nonce, op.expires) as TypedDataDefinition);
  const relayer = freshAddress();
  const fillTx = await fill(op, relayer);

  const [p] = (await authorizeClaim(claimable(op, [signature], fillTx), signers())).elements as UnallocatedClaim[];
  const { signature: attesterSignature, ...attested } = p.fillAttestation!;
  expect(attested).toMatchObject({ fillTransaction: fillTx, relayer });
  const { permit, witness, witnessTypeString } = permit2WitnessCall(el, op.nonce, op.expires);
  const args = (attestation: Hex) => [
    permit,
    sponsor.address,
    witness,
    witnessTypeString,
    signature,
    attested,
    attestation,
  ];
  const forger = privateKeyToAccount(generatePrivateKey());
  const forged = (await attestFill(forger, { chainId, arbiter }, attested)).signature;
  expect(await revertOf(arbiter, 'permit2Claim', args(forged), relayer)).toEqual([
    'InvalidAttestation',
    [forger.address],
  ]);

  await chain.send(arbiter, 'IntentArbiter', 'permit2Claim', args(attesterSignature), relayer);
  expect(await balanceOf(sponsor.address)).toBe(0n);
  expect(await balanceOf(relayer)).toBe(2_000_000n);
});

test("the arbiter makes The Compact's single-chain claim too, for the attested relayer only", async () => {
  const sponsor = privateKeyToAccount(generatePrivateKey());
  await deposit(chain, compact, lockTag, usdc, sponsor.address, 400_000n);
  const { timestamp } = await chain.public.getBlock();
  const single = {
    domain: compactDomain(chainId, compact),
    types: {
      Compact: members(
        'address arbiter,address sponsor,uint256 nonce,uint256 expires,bytes12 lockTag,address token,uint256 amount',
      ),
    },
    primaryType: 'Compact' as const,
    message: {
      arbiter,
      sponsor: sponsor.address,
      nonce: nonce++,
      expires: timestamp + 600n,
      lockTag,
      token: usdc,
      amount: 400_000n,
    },
  };
  const relayer = freshAddress();
  const { signature, ...attested } = await attestFill(
    attesterKey,
    { chainId, arbiter },
    {
      claimHash: hashStruct({ types: single.types, primaryType: 'Compact', data: single.message }),
      fillChainId: 10,
      fillTransaction: `0x${'ab'.repeat(32)}`,
      relayer,
    },
  );
  const args = async (claimant: Hex) => [
    {
      allocatorData: await allocatorKey.sign({ hash: hashTypedData(single) }),
      sponsorSignature: await sponsor.signTypedData(single),
      sponsor: sponsor.address,
      nonce: single.message.nonce,
      expires: single.message.expires,
      witness: zeroHash,
      witnessTypestring: '',
      id,
      allocatedAmount: 400_000n,
      claimants: [{ claimant: BigInt(claimant), amount: 400_000n }],
    },
    attested,
    signature,
  ];
  const thief = freshAddress();
  expect(await revertOf(arbiter, 'claim', await args(thief), thief)).toEqual([
    'NotTheRelayer',
    [BigInt(thief), relayer],
  ]);
  await chain.send(arbiter, 'IntentArbiter', 'claim', await args(relayer), relayer);
  expect(await balanceOf(relayer)).toBe(400_000n);
});
