import type { Log } from 'viem';

/** What RPC providers answer when a range holds more logs (or blocks) than they serve in one response. */
const TOO_MANY = /too many|limit|exceed|range|response size|query returned more than|10000 results/i;

/**
 * The logs of `read` over [from, to], the range halved (recursively) while the RPC refuses it as too large. Any other
 * error is thrown: the activity fails and Temporal retries the whole range, so no block is skipped.
 */
export async function logsInRange<L extends Log>(
  from: bigint,
  to: bigint,
  read: (from: bigint, to: bigint) => Promise<L[]>,
): Promise<L[]> {
  try {
    return await read(from, to);
  } catch (err) {
    if (from === to || !TOO_MANY.test(errorText(err))) throw err;
    const mid = from + (to - from) / 2n;
    return [...(await logsInRange(from, mid, read)), ...(await logsInRange(mid + 1n, to, read))];
  }
}

const errorText = (err: unknown): string =>
  err instanceof Error ? `${err.message} ${errorText((err as Error & { cause?: unknown }).cause ?? '')}` : String(err);
