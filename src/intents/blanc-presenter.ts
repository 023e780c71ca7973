import { getAddress } from 'viem';
import { fromCaip2, toCaip2 } from '../chains/registry';
import { DomainError } from '../errors';
import type { Infer } from '../http/schema';
import type { quoteRequest, submitRequest } from './blanc-schemas';
import type { IntentInput } from './quote';
import type { IssuedQuote } from './quote-service';
import { planSeconds } from './plan-finder';
import type { IntentRecord } from './store';
import { originTypedData } from './typed-data';
import type { IntentOp, SignedIntentOp } from './types';

/** The 2026-04.blanc wire over the shared intent core: CAIP-2 chain ids, integer seconds, renamed fields. */

type BlancQuoteRequest = Infer<typeof quoteRequest>;
type BlancAccessFilter = Pick<
  NonNullable<BlancQuoteRequest['accountAccessList']>,
  'chainIds' | 'tokens' | 'chainTokens'
>;

/** Schemas already checked the CAIP-2 form; this turns it into the chain number the core uses. */
const chainNumber = (caip2: string): number => fromCaip2(caip2)!;

function accessFilter(f: BlancAccessFilter) {
  return {
    ...(f.chainIds ? { chainIds: f.chainIds.map(chainNumber) } : {}),
    ...(f.tokens ? { tokens: f.tokens } : {}),
    ...(f.chainTokens
      ? { chainTokens: Object.fromEntries(Object.entries(f.chainTokens).map(([c, t]) => [String(chainNumber(c)), t])) }
      : {}),
  };
}

/** The resource-lock surface has no equivalent in this version: its fields are refused rather than ignored. */
const LOCK_ONLY = [
  ['options', 'topupCompact'],
  ['account', 'emissaryConfig'],
  ['recipient', 'emissaryConfig'],
] as const;

export function quoteInput(body: BlancQuoteRequest): IntentInput {
  for (const [parent, field] of LOCK_ONLY) {
    if (field in (body[parent] ?? {})) {
      throw new DomainError(
        'VALIDATION_ERROR',
        `${parent}.${field} has no equivalent in 2026-04.blanc (resource-lock features are served under 2026-01.alps only)`,
      );
    }
  }
  const sponsor = body.options.sponsorSettings;
  const { mockSignatures: _mock, ...account } = body.account; // eslint-disable-line @typescript-eslint/no-unused-vars
  return {
    destinationChainId: chainNumber(body.destinationChainId),
    tokenRequests: body.tokenRequests,
    account,
    ...(body.recipient ? { recipient: body.recipient } : {}),
    destinationExecutions: body.destinationExecutions,
    ...(body.destinationGasLimit !== undefined ? { destinationGasUnits: body.destinationGasLimit } : {}),
    ...(body.accountAccessList
      ? {
          accountAccessList: {
            ...accessFilter(body.accountAccessList),
            ...(body.accountAccessList.exclude ? { exclude: accessFilter(body.accountAccessList.exclude) } : {}),
          },
        }
      : {}),
    options: {
      ...(body.options.settlementLayers ? { settlementLayers: body.options.settlementLayers } : {}),
      ...(sponsor
        ? {
            sponsorSettings: {
              gasSponsored: sponsor.gas,
              bridgeFeesSponsored: sponsor.bridgeFees,
              swapFeesSponsored: sponsor.swapFees,
            },
          }
        : {}),
      ...(body.options.feeToken ? { feeToken: body.options.feeToken } : {}),
      ...(body.options.customDeadline !== undefined ? { customDeadline: body.options.customDeadline } : {}),
    },
  };
}

/** Typed data as JSON: uint values as decimal strings, which EIP-712 signers (viem, ethers, wallets) accept. */
const plain = (value: unknown) =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));

/**
 * What the sponsor signs for an operation: one typed data per origin element (the same Compact for every element
 * of a lock-funded intent) and the destination's, as the submit check verifies them.
 */
export function signData(op: Pick<IntentOp, 'sponsor' | 'nonce' | 'expires' | 'elements'>, compactContract: string) {
  const origin = originTypedData(op, compactContract);
  return { origin: origin.map(plain), destination: plain(origin[origin.length - 1]) };
}

/** The stored operation with the signatures a blanc submit carries, as an alps client would echo it. */
export function withSignatures(
  stored: IntentOp,
  signatures: Infer<typeof submitRequest>['signatures'],
): SignedIntentOp {
  return {
    ...stored,
    originSignatures: signatures.origin,
    destinationSignature: signatures.destination,
    ...(signatures.targetExecution ? { targetExecutionSignature: signatures.targetExecution } : {}),
    ...(signatures.authorizations
      ? { signedAuthorizations: signatures.authorizations.map((a) => ({ ...a, chainId: chainNumber(a.chainId) })) }
      : {}),
  };
}

const tokenAmount = (
  chainId: number,
  token: { address: string; symbol: string; decimals: number },
  amount: bigint,
) => ({
  chainId: toCaip2(chainId),
  tokenAddress: token.address,
  symbol: token.symbol,
  decimals: token.decimals,
  amount: amount.toString(),
});

export function presentRoute(issued: IssuedQuote, destinationChainId: number, compactContract: string) {
  const { plan, intentOp } = issued;
  const cost = plan.cost;
  const gasUsd = cost.originGasUsd.reduce((s, o) => s + o.gasUSD, 0) + cost.destinationGasUsd;
  return {
    intentId: BigInt(intentOp.nonce).toString(),
    expiresAt: issued.expiresAt,
    fillDeadline: Number(intentOp.elements[0].mandate.fillDeadline),
    funding: plan.funding === 'COMPACT' ? ('LOCKED' as const) : ('UNLOCKED' as const),
    settlementLayers: [...new Set(plan.layers.values())],
    estimatedFillSeconds: planSeconds(plan),
    cost: {
      input: plan.spends.map((s) => tokenAmount(s.source.chainId, s.source.token, s.amount)),
      output: plan.received.map((r) => tokenAmount(destinationChainId, r.token, r.target)),
      fees: {
        total: {
          usd: cost.totalUsd,
          tokens: plan.received.filter((r) => r.fee > 0n).map((r) => tokenAmount(destinationChainId, r.token, r.fee)),
        },
        breakdown: {
          gas: {
            usd: gasUsd,
            origin: cost.originGasUsd.map((o) => ({ chainId: toCaip2(o.chainId), usd: o.gasUSD })),
            destination: { chainId: toCaip2(destinationChainId), usd: cost.destinationGasUsd },
          },
          settlement: { usd: cost.layerFeeUsd },
          protocol: { usd: cost.protocolFeeUsd },
          sponsored: { usd: cost.sponsoredUsd.relayer + cost.sponsoredUsd.protocol },
        },
      },
    },
    signData: signData(intentOp, compactContract),
    ...(issued.tokenRequirements
      ? {
          tokenRequirements: Object.fromEntries(
            Object.entries(issued.tokenRequirements).map(([chainId, tokens]) => [toCaip2(Number(chainId)), tokens]),
          ),
        }
      : {}),
  };
}

/** PRECONFIRMED is not a blanc status: a preconfirmed intent is still PENDING to this version's clients. */
export function presentBlancStatus(intent: IntentRecord) {
  return {
    intentId: intent.id,
    status: intent.status === 'PRECONFIRMED' ? 'PENDING' : intent.status,
    destinationChainId: toCaip2(intent.destinationChainId),
    accountAddress: getAddress(intent.account),
    claims: intent.claims.map((c) => ({
      chainId: toCaip2(c.chainId),
      status: c.status,
      ...(c.transactionHash
        ? { claimTimestamp: Math.trunc(c.timestamp!), claimTransactionHash: c.transactionHash }
        : {}),
    })),
    ...(intent.fill
      ? { fillTimestamp: Math.trunc(intent.fill.timestamp), fillTransactionHash: intent.fill.transactionHash }
      : {}),
  };
}
