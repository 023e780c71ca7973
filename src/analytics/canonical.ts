/**
 * JSON with object keys sorted (UTF-16 order) and undefined members left out: the output of the `canonicalize`
 * package, which defines an event's dedupe key (test/unit/canonical.test.ts holds the two equal), written as loops
 * over plain strings because it runs for every ingested event.
 */
export function canonicalJson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new Error(Number.isNaN(value) ? 'NaN is not allowed' : 'Infinity is not allowed');
    return JSON.stringify(value);
  }
  const o = value as Record<string, unknown>;
  if (typeof o.toJSON === 'function') return canonicalJson((o.toJSON as () => unknown)());
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) {
      const x: unknown = value[i];
      s += (i ? ',' : '') + canonicalJson(x === undefined || typeof x === 'symbol' ? null : x);
    }
    return `${s}]`;
  }
  let s = '{';
  for (const k of Object.keys(o).sort()) {
    const x = o[k];
    if (x === undefined || typeof x === 'symbol') continue;
    s += `${s.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonicalJson(x)}`;
  }
  return `${s}}`;
}
