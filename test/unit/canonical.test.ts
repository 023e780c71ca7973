import fc from 'fast-check';
import canonicalize from 'canonicalize';
import { canonicalJson } from '../../src/analytics/canonical';

describe('canonicalJson', () => {
  test('23.4 equals canonicalize (the dedupe key definition) on any JSON value, and its text is the same JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        expect(text).toBe(canonicalize(v));
        expect(JSON.parse(text!)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 2000 },
    );
  });

  test('23.4 undefined members and NaN as canonicalize treats them', () => {
    const v = { b: [1, undefined], a: undefined, c: { z: 'é', y: -0 } };
    expect(canonicalJson(v)).toBe(canonicalize(v));
    expect(() => canonicalJson({ x: NaN })).toThrow('NaN is not allowed');
    expect(() => canonicalJson([Infinity])).toThrow('Infinity is not allowed');
  });
});
