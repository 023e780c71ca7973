/**
 * The retry schedule of a webhook delivery, pure so it is unit-tested apart from Temporal. Attempt 1 is immediate;
 * after attempt n fails, the wait is `delays[n-1]` jittered by up to a tenth either way (so receivers that came back
 * are not hit by every queued retry at the same instant). Past the last delay there is no further attempt.
 */
export function delayAfter(delaysSeconds: number[], attempt: number, random: number): number | null {
  const base = delaysSeconds[attempt - 1];
  if (base === undefined) return null;
  return Math.max(0, Math.round(base * (0.9 + 0.2 * random) * 1000) / 1000);
}

/** A stable number in [0, 1) from a key (FNV-1a), so jitter differs per event and attempt yet replays identically. */
export function unitHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) / 2 ** 32;
}
