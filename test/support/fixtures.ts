import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';

/**
 * What the integration suites share: the published 1.x client's own Compact typed-data builder, tokens, hashes and
 * indexer events.
 */
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
export const { getCompactTypedData }: { getCompactTypedData: (op: any) => any } = require(
  path.join(sdkDir, 'execution/compact'),
);
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const ARB_USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';
/**
 * Transaction hash `n` of this test file: a random prefix per file (jest loads this module once per file), so the
 * suites sharing a database never report one another's transactions, whatever numbers they pick.
 */
const TX_PREFIX = randomBytes(8).toString('hex');
export const TX = (n: number) => `0x${TX_PREFIX}${n.toString(16).padStart(48, '0')}`;
/**
 * The block of a snapshot stamped with `timestamp` (unix seconds): one block a second, numbered by its time, so the
 * stamped snapshots of every suite (they share one database) agree with each other, as the indexer route requires
 * of a chain's block timestamps.
 */
export const blockAt = (timestamp: number) => timestamp;

/** An indexer event id no other event of the run has: the suites share one database, where a repeated id is dropped. */
export const eventId = (kind = 'event') => `${kind}-${randomUUID()}`;

/**
 * The indexer's snapshot of a USDC balance on Base at block 1; `extra` sets any other field (another chain or token, a
 * later block, its timestamp).
 */
const usdcSnapshot = (
  account: string,
  amount: { locked: string } | { unlocked: string },
  extra: Record<string, unknown>,
): { id: string; account: string } & Record<string, unknown> => ({
  id: eventId('balance'),
  type: 'balance',
  chainId: 8453,
  account,
  token: BASE_USDC,
  ...amount,
  blockNumber: '1',
  ...extra,
});

/** `locked` USDC in this allocator's lock: the funding most tests need. */
export const lockedSnapshot = (account: string, locked: string, extra: Record<string, unknown> = {}) =>
  usdcSnapshot(account, { locked }, extra);

/** `unlocked` USDC in the account's wallet: funds a Permit2 route. */
export const walletSnapshot = (account: string, unlocked: string, extra: Record<string, unknown> = {}) =>
  usdcSnapshot(account, { unlocked }, extra);

/** An event of intent `nonce` mined now on `chainId`; `extra` sets any other field (another chain, its block, time). */
const minedEvent = <Type extends 'fill' | 'claim'>(
  type: Type,
  chainId: number,
  nonce: string,
  transactionHash: string,
  extra: Record<string, unknown>,
) => ({
  id: eventId(type),
  type,
  chainId,
  nonce,
  transactionHash,
  timestamp: Math.floor(Date.now() / 1000),
  ...extra,
});

/** The relayer's fill of intent `nonce` on Arbitrum. */
export const fillEvent = (nonce: string, transactionHash: string, extra: Record<string, unknown> = {}) =>
  minedEvent('fill', 42161, nonce, transactionHash, extra);

/** The arbiter's claim of intent `nonce` on Base. */
export const claimEvent = (nonce: string, transactionHash: string, extra: Record<string, unknown> = {}) =>
  minedEvent('claim', 8453, nonce, transactionHash, extra);
