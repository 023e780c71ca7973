import path from 'node:path';
import { encodeAbiParameters, hashTypedData, zeroHash, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { digestOf, lockTagOf, originTypedData, tokenOf } from '../../src/intents/typed-data';
import { bodyHash, quoteDigest, serverSigner, signIntentOp } from '../../src/intents/server-signature';
import type { IntentOp } from '../../src/intents/types';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const sdkCompact: any = require(path.join(sdkDir, 'execution/compact'));
const sdkPermit2: any = require(path.join(sdkDir, 'execution/permit2'));
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

const id = BigInt('0x60e6d13bb05699a31a457679a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48').toString();
const element = (chainId: string, fundingMethod: 'COMPACT' | 'PERMIT2') => ({
  arbiter: '0x000000000006e2569CaF8Ff021810790e0A0D740',
  chainId,
  idsAndAmounts: [[id, '1234567']] as [string, string][],
  spendTokens: [[id, '1234567']] as [string, string][],
  beforeFill: false,
  mandate: {
    recipient: '0x1111111111111111111111111111111111111111',
    tokenOut: [[id, '1000000']] as [string, string][],
    destinationChainId: '42161',
    fillDeadline: '1800000000',
    minGas: '0',
    preClaimOps: { vt: zeroHash, ops: [] },
    destinationOps: {
      vt: zeroHash,
      ops: [{ to: '0x2222222222222222222222222222222222222222', value: '5', data: '0xabcd' }],
    },
    qualifier: {
      settlementContext: { settlementLayer: 'ACROSS', fundingMethod, using7579: false },
      encodedVal: encodeAbiParameters([{ type: 'string' }], ['ACROSS']),
    },
  },
});
const op = (fundingMethod: 'COMPACT' | 'PERMIT2'): IntentOp => ({
  sponsor: '0x3333333333333333333333333333333333333333',
  nonce: '42',
  targetExecutionNonce: '0',
  expires: '1800003600',
  elements: [element('8453', fundingMethod), element('10', fundingMethod)],
  serverSignature: '0x',
  signedMetadata: { tokenPrices: { USDC: 1 } },
});

test('our MultichainCompact digest equals the published client’s (getCompactTypedData)', () => {
  const o = op('COMPACT');
  const ours = originTypedData(o, '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f');
  expect(ours.map(digestOf)).toEqual([sdkCompact.getCompactDigest(o), sdkCompact.getCompactDigest(o)]);
});

test('our Permit2 digest per element equals the published client’s', () => {
  const o = op('PERMIT2');
  expect(originTypedData(o, '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f').map(digestOf)).toEqual(
    o.elements.map((e) => sdkCompact.getPermit2Digest(e, 42n, 1800003600n)),
  );
  expect(sdkPermit2.getTypedData(o.elements[0], 42n, 1800003600n).domain.verifyingContract).toBe(
    '0x000000000022D473030F116dDEE9F6B43aC78BA3',
  );
});

test('ids split into lock tag and token, padded to 32 bytes', () => {
  expect(lockTagOf(id)).toBe('0x60e6d13bb05699a31a457679');
  expect(tokenOf(id)).toBe('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
  expect(tokenOf('1')).toBe('0x0000000000000000000000000000000000000001');
});

test('the server signature recovers to the orchestrator and covers the whole body', async () => {
  const key = privateKeyToAccount(generatePrivateKey());
  const o = op('COMPACT');
  const signed = { ...o, serverSignature: await signIntentOp(o, key) };
  expect(await serverSigner(signed)).toBe(key.address);
  const tampered = { ...signed, signedMetadata: { tokenPrices: { USDC: 2 } } };
  expect(await serverSigner(tampered)).not.toBe(key.address);
  expect(bodyHash({ ...o, signedMetadata: { b: 1, a: 2 } })).toBe(bodyHash({ ...o, signedMetadata: { a: 2, b: 1 } }));
  // The digest with the domain separator hashed once is viem's EIP-712 digest of the same message.
  expect(quoteDigest(o)).toBe(
    hashTypedData({
      domain: { name: 'IntentOrchestrator', version: '1' },
      types: {
        IntentQuote: [
          { name: 'sponsor', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'expires', type: 'uint256' },
          { name: 'bodyHash', type: 'bytes32' },
        ],
      },
      primaryType: 'IntentQuote',
      message: { sponsor: o.sponsor as Hex, nonce: BigInt(o.nonce), expires: BigInt(o.expires), bodyHash: bodyHash(o) },
    }),
  );
});
