import { getAddress } from 'viem';

/**
 * The Compact v1 lockTag (bytes12) for an allocator: scope (1 bit) | resetPeriod (3 bits) | allocatorId (92 bits),
 * where allocatorId = compactFlag (4 bits) << 88 | low 88 bits of the allocator address (IdLib.sol).
 */
export function compactFlag(allocator: string): number {
  const hex = getAddress(allocator).slice(2).toLowerCase();
  const leadingZeroNibbles = hex.length - hex.replace(/^0+/, '').length;
  if (leadingZeroNibbles <= 3) return 0;
  if (leadingZeroNibbles >= 18) return 15;
  return leadingZeroNibbles - 3;
}

export function allocatorId(allocator: string): bigint {
  const low88 = BigInt(getAddress(allocator)) & ((1n << 88n) - 1n);
  return (BigInt(compactFlag(allocator)) << 88n) | low88;
}

export function lockTagFor(allocator: string, scope: 0 | 1, resetPeriod: number): `0x${string}` {
  const tag = (BigInt(scope) << 95n) | (BigInt(resetPeriod) << 92n) | allocatorId(allocator);
  return `0x${tag.toString(16).padStart(24, '0')}`;
}
