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

/** Reset period index → seconds (The Compact's ResetPeriod table; 6 = seven days and one hour). */
export const RESET_PERIOD_SECONDS = [1, 15, 60, 600, 3900, 86_400, 608_400, 2_592_000];

/** After a lock's reset period its sponsor can complete a forced withdrawal: no authorization may outlive it. */
export const resetPeriodSeconds = (lockTag: string) => RESET_PERIOD_SECONDS[parseInt(lockTag[2], 16) & 0x7];

/** A resource lock id is lockTag (12 bytes) ‖ token (20 bytes); lowercase hex parts. */
export function splitLockId(lockId: string | number | bigint): { lockTag: string; token: string } {
  const id = BigInt(lockId);
  return {
    lockTag: `0x${(id >> 160n).toString(16).padStart(24, '0')}`,
    token: `0x${(id & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`,
  };
}

/** The resource lock id of a lock tag and a token (decimal): splitLockId's inverse. */
export const joinLockId = (lockTag: string, token: string): string =>
  BigInt(`0x${lockTag.slice(2)}${token.slice(2).toLowerCase()}`).toString();
