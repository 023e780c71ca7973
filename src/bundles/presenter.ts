import { encodeAbiParameters, getAddress, parseAbiParameters, zeroAddress } from 'viem';
import type { TokenInfo } from '../chains/registry';
import { splitLockId } from '../chains/lock-tag';
import type { IntentCost } from '../intents/quote';
import type { IntentStatus } from '../../workflows/intent-state';
import type { SignedOrderBundle, Uint } from './order-bundle';

/**
 * The legacy (0.5.x) wire shapes, rendered from the domain's own results: the intent cost, the shortfall, the
 * lifecycle status. Amounts are decimal strings where the client BigInt-parses them.
 */
/** The fulfilled form: one spent amount per chain and token (locked and wallet funds together). */
export function presentCost({ tokensSpent, tokensReceived }: IntentCost) {
  return {
    hasFulfilledAll: true,
    tokensSpent: Object.fromEntries(
      Object.entries(tokensSpent).map(([chainId, tokens]) => [
        chainId,
        Object.fromEntries(
          Object.entries(tokens).map(([token, a]) => [token, (BigInt(a.locked) + BigInt(a.unlocked)).toString()]),
        ),
      ]),
    ),
    tokensReceived: tokensReceived.map(({ tokenAddress, amountSpent, targetAmount, fee, hasFulfilled }) => ({
      tokenAddress,
      amountSpent,
      targetAmount,
      fee,
      hasFulfilled,
    })),
  };
}

export interface Shortfall {
  token: TokenInfo;
  requested: bigint;
  available: bigint;
  priceUsd: number;
}

/** The shortfall form: what each token lacks, and the total in whole USD rounded up (the client needs an integer). */
export function presentShortfall(items: Shortfall[]) {
  const missingUsd = items.reduce(
    (sum, i) =>
      sum + (Number(i.requested > i.available ? i.requested - i.available : 0n) / 10 ** i.token.decimals) * i.priceUsd,
    0,
  );
  return {
    hasFulfilledAll: false,
    tokenShortfall: items.map((i) => ({
      tokenAddress: i.token.address,
      targetAmount: i.requested.toString(),
      amountSpent: (i.available < i.requested ? i.available : i.requested).toString(),
      fee: '0', // no route, so no fee was priced
      tokenSymbol: i.token.symbol,
      tokenDecimals: i.token.decimals,
    })),
    totalTokenShortfallInUSD: String(Math.ceil(missingUsd)),
  };
}

/**
 * The intent lifecycle's states under their legacy names. A PRECONFIRMED bundle is still PENDING to the client;
 * CLAIMED (filled, some origin chains claimed) is PARTIALLY_COMPLETED.
 */
export const LEGACY_STATUS: Record<IntentStatus, string> = {
  PENDING: 'PENDING',
  PRECONFIRMED: 'PENDING',
  FILLED: 'FILLED',
  CLAIMED: 'PARTIALLY_COMPLETED',
  COMPLETED: 'COMPLETED',
  EXPIRED: 'EXPIRED',
  FAILED: 'FAILED',
};

/** The signed order as the arbiters decode it, with its origin and target signatures. */
const SIGNED_ORDER = parseAbiParameters([
  'Order order, bytes[] originSignatures, bytes targetSignature',
  'struct Order { address sponsor; uint256 nonce; uint256 expires; Segment[] segments; }',
  'struct Segment { address arbiter; uint256 chainId; uint256[2][] idsAndAmounts; Witness witness; }',
  'struct Witness { address recipient; uint256[2][] tokenOut; uint256 depositId; uint256 targetChain; uint32 fillDeadline; Execution[] execs; bytes32 userOpHash; uint32 maxFeeBps; }',
  'struct Execution { address to; uint256 value; bytes data; }',
]);

const pairs = (p: Uint[][]) => p.map(([a, b]) => [BigInt(a), BigInt(b)] as const);

/** The signed order ABI-encoded with its signatures: the calldata the arbiters take to fill and to claim. */
function encodeSigned(b: SignedOrderBundle) {
  return encodeAbiParameters(SIGNED_ORDER, [
    {
      sponsor: getAddress(b.sponsor),
      nonce: BigInt(b.nonce),
      expires: BigInt(b.expires),
      segments: b.segments.map((s) => ({
        arbiter: getAddress(s.arbiter),
        chainId: BigInt(s.chainId),
        idsAndAmounts: pairs(s.idsAndAmounts),
        witness: {
          recipient: getAddress(s.witness.recipient),
          tokenOut: pairs(s.witness.tokenOut),
          depositId: BigInt(s.witness.depositId),
          targetChain: BigInt(s.witness.targetChain),
          fillDeadline: Number(s.witness.fillDeadline),
          execs: s.witness.execs.map((x) => ({ to: getAddress(x.to), value: BigInt(x.value), data: x.data })),
          userOpHash: s.witness.userOpHash,
          maxFeeBps: Number(s.witness.maxFeeBps),
        },
      })),
    },
    b.originSignatures,
    b.targetSignature,
  ]);
}

/**
 * The event relayers page through (GET /bundles/events) for an accepted bundle: the fill on the target chain and,
 * per origin segment, the deposit it claims (its first input and first output token).
 */
export function pendingBundleEvent(id: string, b: SignedOrderBundle, acceptedAt: number) {
  const data = encodeSigned(b);
  const target = b.segments[0].witness;
  return {
    type: 'PendingBundle',
    bundleId: id,
    targetFillPayload: { to: getAddress(b.segments[0].arbiter), data, value: '0', chainId: Number(target.targetChain) },
    acrossDepositEvents: b.segments.map((s) => ({
      message: '0x',
      depositId: id,
      depositor: getAddress(b.sponsor),
      recipient: getAddress(s.witness.recipient),
      inputToken: getAddress(splitLockId(s.idsAndAmounts[0][0]).token),
      inputAmount: String(s.idsAndAmounts[0][1]),
      outputToken: s.witness.tokenOut[0] ? getAddress(splitLockId(s.witness.tokenOut[0][0]).token) : zeroAddress,
      outputAmount: String(s.witness.tokenOut[0]?.[1] ?? '0'),
      fillDeadline: Number(s.witness.fillDeadline),
      quoteTimestamp: acceptedAt,
      exclusivityDeadline: 0,
      exclusiveRelayer: zeroAddress,
      destinationChainId: Number(s.witness.targetChain),
      originClaimPayload: { to: getAddress(s.arbiter), data, value: '0', chainId: Number(s.chainId) },
    })),
  };
}
