import path from 'node:path';
import {
  encodeAbiParameters,
  hashStruct,
  recoverAddress,
  recoverTypedDataAddress,
  zeroHash,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ChainRpc } from '../../src/chains/rpc';
import { FILL_ATTESTATION_TYPES, permit2ClaimHash, type FillAttestation } from '../../src/intents/fill-attestation';
import { permit2WitnessCall } from '../../src/intents/permit2-call';
import {
  authorizeClaim,
  claimHashes,
  type ClaimSigners,
  type CompactClaim,
} from '../../src/intents/claim-authorization';
import { MANDATE_WITNESS } from '../../src/intents/typed-data';
import type { ClaimableIntent } from '../../src/intents/store';
import type { IntentOp } from '../../src/intents/types';
import { fastAccount } from '../../src/signatures/secp256k1';
import {
  claimDigest,
  claimHashFrom,
  claimHashOf,
  domainSeparator,
  elementHashOf,
  TYPEHASHES,
  WITNESS_TYPESTRING,
  witnessOf,
} from '../support/compact-claim';
import { TEST_SECRETS } from '../support/secrets';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const sdkCompact: any = require(path.join(sdkDir, 'execution/compact'));
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

const CLIENT_COMPACT = '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f';
const CANONICAL_COMPACT = '0x00000000000000171ede64904551eeDF3C6C9788';
const LOCK_TAG = '0x60e6d13bb05699a31a457679';
const id = (token: string) => BigInt(`${LOCK_TAG}${token.slice(2)}`).toString();
const BASE_USDC = id('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913');
const BASE_WETH = id('0x4200000000000000000000000000000000000006');
const OP_USDC = id('0x0b2c639c533813f4aa9d7837caf62653d097ff85');
const ARB_USDC = id('0xaf88d065e77c8cc2239327c5edb3a432268e5831');

const ARBITER = '0x000000000006e2569CaF8Ff021810790e0A0D740';
const element = (
  chainId: string,
  idsAndAmounts: [string, string][],
  fundingMethod: 'COMPACT' | 'PERMIT2' = 'COMPACT',
) => ({
  arbiter: ARBITER,
  chainId,
  idsAndAmounts,
  spendTokens: idsAndAmounts,
  beforeFill: false,
  mandate: {
    recipient: '0x1111111111111111111111111111111111111111',
    tokenOut: [
      [ARB_USDC, '4000000'],
      [ARB_USDC, '7'],
    ] as [string, string][],
    destinationChainId: '42161',
    fillDeadline: '1800000000',
    minGas: '21000',
    preClaimOps: {
      vt: zeroHash,
      ops: [{ to: '0x4444444444444444444444444444444444444444', value: '0', data: '0x' as Hex }],
    },
    destinationOps: {
      vt: `0x${'ab'.repeat(32)}` as Hex,
      ops: [{ to: '0x2222222222222222222222222222222222222222', value: '5', data: '0xabcd' as Hex }],
    },
    qualifier: {
      settlementContext: { settlementLayer: 'ACROSS', fundingMethod, using7579: false },
      encodedVal: encodeAbiParameters(
        [{ type: 'string' }, { type: 'string' }, { type: 'bool' }, { type: 'uint256' }],
        ['ACROSS', fundingMethod, false, 42n],
      ),
    },
  },
});
/** Two origin chains, the first with two locks (their order is part of the hash). */
const op = (fundingMethod: 'COMPACT' | 'PERMIT2' = 'COMPACT'): IntentOp => ({
  sponsor: '0x3333333333333333333333333333333333333333',
  nonce: '42',
  targetExecutionNonce: '0',
  expires: '1800003600',
  elements: [
    element(
      '8453',
      [
        [BASE_USDC, '2500000'],
        [BASE_WETH, '9'],
      ],
      fundingMethod,
    ),
    element('10', [[OP_USDC, '1600000']], fundingMethod),
  ],
  serverSignature: '0x',
  signedMetadata: {},
});
const sponsorSignature = `0x${'5a'.repeat(65)}` as Hex;
const intent = (o: IntentOp, heldChainIds: number[], expired = false): ClaimableIntent => ({
  id: o.nonce,
  operation: o,
  signatures: { originSignatures: o.elements.map(() => sponsorSignature), destinationSignature: sponsorSignature },
  expired,
  heldChainIds,
  fill: null,
});

const allocator = fastAccount(TEST_SECRETS.ALLOCATOR_PRIVATE_KEY as Hex);
const deps = { compact: CLIENT_COMPACT as Hex, allocator };

test("a relayer can claim: the independent hashing agrees with The Compact's published constants", () => {
  expect(TYPEHASHES).toEqual({
    lock: '0xfb7744571d97aa61eb9c2bc3c67b9b1ba047ac9e95afb2ef02bc5b3d9e64fbe5',
    element: '0xc3e0b49b35866f940704f2fb568b9d5dae17a245971e2c095778b60ea177f03b',
    multichainCompact: '0x172d857ea70e48d30dcad00bb0fc789a34f09c5545da1245400da01d4ef6c8a2',
    multichainCompactWithMandate: '0x558f66062aaa99f9b8229dfe1621b6efcee0513dbc552aa5ffac622f4823dbfc',
  });
  expect(domainSeparator(1, CANONICAL_COMPACT)).toBe(
    '0x4ac11bdf0eb5972bae47825af851d20c342d88f466669ec58827be03650df019',
  );
  expect(MANDATE_WITNESS).toBe(WITNESS_TYPESTRING);
});

test("a relayer can claim: the service's claimHash is The Compact's, computed by hand from its typestrings and the client's typed data", () => {
  const o = op();
  const { claimHash, elements } = claimHashes(o);
  expect(claimHash).toBe(claimHashOf(o));
  expect(elements).toEqual(o.elements.map((e) => ({ hash: elementHashOf(e), witness: witnessOf(e.mandate) })));
  // The struct the published client signs hashes the same, and the sponsor's digest is this claimHash in the
  // notarized chain's domain: the sponsor signature is valid for the claim The Compact rebuilds.
  const signed = sdkCompact.getCompactTypedData(o);
  expect(hashStruct({ types: signed.types, primaryType: 'MultichainCompact', data: signed.message })).toBe(claimHash);
  expect(sdkCompact.getCompactDigest(o)).toBe(claimDigest(claimHash, 8453, CLIENT_COMPACT));
});

test('a relayer can claim: allocatorData per chain recovers to the allocator over keccak256(0x1901 ‖ domainSeparator(chain) ‖ claimHash), and is the same when asked again', async () => {
  const o = op();
  const answer = await authorizeClaim(intent(o, [8453, 10]), deps);
  const claimHash = claimHashOf(o);
  expect(answer).toMatchObject({
    nonce: '42',
    expires: '1800003600',
    sponsor: o.sponsor,
    claimHash,
    witnessTypestring: WITNESS_TYPESTRING,
  });
  const [notarized, exogenous] = answer.elements as CompactClaim[];
  expect(notarized).toMatchObject({
    chainId: 8453,
    fundingMethod: 'COMPACT',
    compact: CLIENT_COMPACT,
    // Base commits two locks (USDC and WETH): The Compact claims them with a component each, the batch form.
    claim: 'batchMultichainClaim',
    notarizedChainId: 8453,
    sponsorSignature,
  });
  expect(exogenous).toMatchObject({
    chainId: 10,
    fundingMethod: 'COMPACT',
    compact: CLIENT_COMPACT,
    claim: 'exogenousClaim',
    chainIndex: 0,
    notarizedChainId: 8453,
    sponsorSignature,
  });
  expect('chainIndex' in notarized).toBe(false);
  for (const [i, e] of (answer.elements as CompactClaim[]).entries()) {
    expect(e.witness).toBe(witnessOf(o.elements[i].mandate));
    // The contract inserts its own element after additionalChains[chainIndex] (first on the notarized chain).
    const at = e.claim === 'exogenousClaim' ? e.chainIndex + 1 : 0;
    const rebuilt = [...e.additionalChains.slice(0, at), elementHashOf(o.elements[i]), ...e.additionalChains.slice(at)];
    expect(claimHashFrom(o, rebuilt)).toBe(claimHash);
    const digest = claimDigest(claimHash, e.chainId, CLIENT_COMPACT);
    expect(await recoverAddress({ hash: digest, signature: e.allocatorData! })).toBe(allocator.address);
    // RFC 6979: viem's own signer gives the same bytes for the same digest.
    expect(e.allocatorData).toBe(
      await privateKeyToAccount(TEST_SECRETS.ALLOCATOR_PRIVATE_KEY as Hex).sign({ hash: digest }),
    );
  }
  expect(notarized.allocatorData).not.toBe(exogenous.allocatorData); // one signature per chain's domain
  expect(await authorizeClaim(intent(o, [8453, 10]), deps)).toEqual(answer);
});

test('a relayer can claim: nothing for a chain whose reservation was released, 409 once none is held or past expires, none needed for Permit2', async () => {
  const o = op();
  const partly = await authorizeClaim(intent(o, [10]), deps);
  expect(partly.elements.map((e) => [e.chainId, e.allocatorData === null])).toEqual([
    [8453, true],
    [10, false],
  ]);
  await expect(authorizeClaim(intent(o, []), deps)).rejects.toMatchObject({
    code: 'CONFLICT',
    message:
      'Intent 42 holds no reserved funds any more (its claims settled, or it was cancelled): no claim of it is authorized',
  });
  await expect(authorizeClaim(intent(o, [8453, 10], true), deps)).rejects.toMatchObject({
    code: 'CONFLICT',
    message: 'Intent 42 expired at 1800003600: The Compact accepts no claim of it',
  });
  const permit2 = op('PERMIT2');
  expect(await authorizeClaim(intent(permit2, [8453, 10]), deps)).toEqual({
    nonce: '42',
    expires: '1800003600',
    sponsor: permit2.sponsor,
    claimHash: null,
    witnessTypestring: null,
    elements: [
      { chainId: 8453, fundingMethod: 'PERMIT2', allocatorData: null, arbiter: ARBITER, fillAttestation: null },
      { chainId: 10, fundingMethod: 'PERMIT2', allocatorData: null, arbiter: ARBITER, fillAttestation: null },
    ],
  });
  // A cancelled intent (a voided deposit's bridge) holds nothing: its Permit2 claim is not authorized either.
  await expect(authorizeClaim(intent(permit2, []), deps)).rejects.toMatchObject({ code: 'CONFLICT' });
});

test('a proven fill gets an attestation per element that names the arbiter of its chain, for the relayer that sent it, in that arbiter domain', async () => {
  const attester = privateKeyToAccount(generatePrivateKey());
  const relayer = '0x5555555555555555555555555555555555555555';
  const fillTransaction = `0x${'f1'.repeat(32)}` as Hex;
  const asked: [number, Hex][] = [];
  const rpc: ChainRpc = {
    client: (chainId) =>
      ({
        getTransaction: async ({ hash }: { hash: Hex }) => (asked.push([chainId, hash]), { from: relayer }),
      }) as unknown as PublicClient,
  };
  // Our arbiter is configured on Base only: Optimism's element is attested nothing.
  const deps: ClaimSigners = {
    compact: CLIENT_COMPACT as Hex,
    allocator: fastAccount(TEST_SECRETS.ALLOCATOR_PRIVATE_KEY as Hex),
    attester: { account: attester, arbiters: new Map([[8453, ARBITER as Hex]]), rpc },
  };
  const verify = async (chainId: number, a: FillAttestation | null) =>
    recoverTypedDataAddress({
      domain: { name: 'IntentArbiter', version: '1', chainId, verifyingContract: ARBITER },
      types: FILL_ATTESTATION_TYPES,
      primaryType: 'FillAttestation',
      message: { ...a!, fillChainId: BigInt(a!.fillChainId) },
      signature: a!.signature,
    });

  const o = op();
  expect((await authorizeClaim(intent(o, [8453, 10]), deps)).elements.map((e) => e.fillAttestation)).toEqual([
    null,
    null,
  ]); // no fill yet
  const filled = { ...intent(o, [8453, 10]), fill: { chainId: 42161, transactionHash: fillTransaction } };
  const [base, optimism] = (await authorizeClaim(filled, deps)).elements;
  expect(asked).toEqual([[42161, fillTransaction]]);
  expect(base.fillAttestation).toMatchObject({
    claimHash: claimHashes(o).claimHash,
    fillChainId: 42161,
    fillTransaction,
    relayer,
  });
  expect(await verify(8453, base.fillAttestation)).toBe(attester.address);
  expect(optimism).toMatchObject({ arbiter: ARBITER, fillAttestation: null });

  // A Permit2 element's claim is Permit2's pull: its hash binds the owner, the nonce and the signed witness.
  const p = op('PERMIT2');
  const [permit2] = (await authorizeClaim({ ...filled, operation: p }, deps)).elements;
  const witness = permit2WitnessCall(p.elements[0], p.nonce, p.expires).witness;
  expect(permit2.fillAttestation?.claimHash).toBe(permit2ClaimHash(p.sponsor, 42n, witness));
  expect(await verify(8453, permit2.fillAttestation)).toBe(attester.address);
  expect(asked).toHaveLength(1); // the proven fill's sender is read once
});
