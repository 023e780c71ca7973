import { encodeAbiParameters, zeroHash } from 'viem';
import type { Element } from '../../src/intents/types';

type Op = { to: string; value: string; data: string };

/**
 * An intent element laid out as the service quotes one, for the anvil tests that sign and claim it: `idsAndAmounts`
 * spent on `chainId`, its mandate paying `tokenOut` to `recipient` on `destinationChainId`. `settlementValue`, when
 * given, is appended to the qualifier's encoded value as the client encodes a Permit2 element's.
 */
export function testElement(o: {
  arbiter: string;
  chainId: number;
  idsAndAmounts: [string, string][];
  fundingMethod: 'COMPACT' | 'PERMIT2';
  tokenOut: [string, string][];
  recipient?: string;
  destinationChainId?: number;
  fillDeadline?: string;
  destinationOps?: Op[];
  settlementValue?: bigint;
}): Element {
  const extra = o.settlementValue === undefined ? [] : [o.settlementValue];
  return {
    arbiter: o.arbiter,
    chainId: String(o.chainId),
    idsAndAmounts: o.idsAndAmounts,
    spendTokens: o.idsAndAmounts,
    beforeFill: false,
    mandate: {
      recipient: o.recipient ?? '0x1111111111111111111111111111111111111111',
      tokenOut: o.tokenOut,
      destinationChainId: String(o.destinationChainId ?? 8453),
      fillDeadline: o.fillDeadline ?? '4000000000',
      minGas: '0',
      preClaimOps: { vt: zeroHash, ops: [] },
      destinationOps: { vt: zeroHash, ops: o.destinationOps ?? [] },
      qualifier: {
        settlementContext: { settlementLayer: 'ACROSS', fundingMethod: o.fundingMethod, using7579: false },
        encodedVal: encodeAbiParameters(
          [{ type: 'string' }, { type: 'string' }, { type: 'bool' }, ...extra.map(() => ({ type: 'uint256' }))],
          ['ACROSS', o.fundingMethod, false, ...extra],
        ),
      },
    },
  };
}

/** One call on the destination, as the tests' mandates carry it. */
export const DESTINATION_OP: Op = { to: '0x2222222222222222222222222222222222222222', value: '0', data: '0xabcd' };

/** Base's USDC, what the tests' mandates pay out (under the lock tag given). */
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
