import fc from 'fast-check';
import { hashTypedData, toHex, type TypedDataDefinition } from 'viem';
import { typedDataDigest } from '../../src/signatures/eip712-hash';
import { members } from '../../src/signatures/eip712-members';

// Every kind of member: atomic (sized integers, signed ones negative too, fixed bytes, address, bool), dynamic
// (bytes, string), nested structs, arrays of structs and of atoms, and a struct used by two others.
const types = {
  Outer: members(
    'address who,uint8 small,int64 signed,bool flag,bytes12 tag,Inner[] inners,Leaf leaf,uint256[] amounts',
  ),
  Inner: members('bytes data,string note,Leaf leaf,int256 delta'),
  Leaf: members('bytes32 root,address[] parties'),
};

const hex = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => toHex(b));
const address = hex(20);
const leaf = fc.record({ root: hex(32), parties: fc.array(address, { maxLength: 3 }) });
const outer = fc.record({
  who: address,
  small: fc.bigInt({ min: 0n, max: 255n }),
  signed: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  flag: fc.boolean(),
  tag: hex(12),
  inners: fc.array(
    fc.record({
      data: fc.uint8Array({ maxLength: 80 }).map((b) => toHex(b)),
      note: fc.string(),
      leaf,
      delta: fc.bigInt({ min: -(2n ** 255n), max: 2n ** 255n - 1n }),
    }),
    { maxLength: 3 },
  ),
  leaf,
  amounts: fc.array(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), { maxLength: 3 }),
});
const domain = fc.record(
  {
    name: fc.string(),
    version: fc.string(),
    chainId: fc.integer({ min: 1, max: 2 ** 31 }),
    verifyingContract: address,
    salt: hex(32),
  },
  { requiredKeys: [] },
);

test('the digest is viem hashTypedData of the same typed data, for every member kind and domain shape', () => {
  fc.assert(
    fc.property(outer, domain, (message, d) => {
      const typedData = { domain: d, types, primaryType: 'Outer', message } as unknown as TypedDataDefinition;
      expect(typedDataDigest(typedData)).toBe(hashTypedData(typedData));
    }),
    { numRuns: 200 },
  );
});

test('values viem refuses are refused too', () => {
  const valid = {
    who: '0x000000000000000000000000000000000000dEaD',
    small: 1n,
    signed: -1n,
    flag: true,
    tag: toHex(new Uint8Array(12)),
    inners: [],
    leaf: { root: toHex(new Uint8Array(32)), parties: [] },
    amounts: [],
  };
  const digest = (message: object) => () =>
    typedDataDigest({ domain: {}, types, primaryType: 'Outer', message } as unknown as TypedDataDefinition);
  expect(digest(valid)).not.toThrow();
  for (const wrong of [
    { small: 256n },
    { signed: 2n ** 63n },
    { tag: toHex(new Uint8Array(11)) },
    { who: '0x1234' },
    { who: '0x000000000000000000000000000000000000DEAD' }, // a checksum that does not match
  ]) {
    expect(digest({ ...valid, ...wrong })).toThrow();
    expect(() =>
      hashTypedData({ domain: {}, types, primaryType: 'Outer', message: { ...valid, ...wrong } } as never),
    ).toThrow();
  }
});
