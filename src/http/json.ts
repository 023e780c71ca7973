/**
 * JSON text in which bigints are written as exact integer literals (e.g. 256-bit claimants), which JSON.stringify
 * refuses and a JS number would round. Readers must parse with a big-number-aware parser to keep them exact.
 */
export function stringifyWithBigInts(value: unknown): string {
  const marker = '\uE000bigint:'; // a private-use character: JSON.stringify leaves it unescaped
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${marker}${v.toString()}` : v));
  return text.replace(new RegExp(`"${marker}(-?\\d+)"`, 'g'), '$1');
}
