import { encodeAbiParameters, getAddress, isAddress, zeroHash } from 'viem';
import type { ChainRegistry, TokenInfo } from '../chains/registry';
import { resetPeriodSeconds } from '../chains/lock-tag';
import { arbiterOn, type IntentConfig } from './config';
import { DomainError } from '../errors';
import { Plan, TokenRequest } from './plan-finder';
import type { Source } from '../ledger/ledger';
import { PERMIT2_ADDRESS } from './typed-data';
import type { AccountContext, Element, Hex } from './types';
import type { UnsignedIntentOp } from './server-signature';

/** The body of POST /intents/route and /intents/cost after schema validation (bigints still strings). */
export interface IntentInput {
  destinationChainId: number;
  tokenRequests: { tokenAddress: string; amount?: string }[];
  account: {
    address: string;
    accountType: 'ERC7579' | 'EOA' | 'GENERIC' | 'smartAccount';
    setupOps: { to: string; data: string }[];
    delegations?: object;
  };
  recipient?: { address: string; accountType: string };
  destinationExecutions: { to: string; value: string | number; data: string }[];
  destinationGasUnits?: string | number;
  accountAccessList?: { chainId: number; tokenAddress: string }[] | AccessList;
  options: {
    settlementLayers?: string[];
    sponsorSettings?: {
      gasSponsored?: boolean;
      bridgeFeesSponsored?: boolean;
      swapFeesSponsored?: boolean;
      protocolFeesSponsored?: boolean;
    };
    feeToken?: string;
    customDeadline?: number;
  };
}
interface AccessFilter {
  chainIds?: number[];
  tokens?: string[];
  chainTokens?: Record<string, string[]>;
}
type AccessList = AccessFilter & { exclude?: AccessFilter };

/** Resolves the requested tokens on the destination chain with the messages the client maps. */
export function resolveRequests(input: IntentInput, registry: ChainRegistry): TokenRequest[] {
  const chain = registry.chain(input.destinationChainId);
  if (!chain) throw new DomainError('UNSUPPORTED_CHAIN', `Unsupported chain ${input.destinationChainId}`);
  return input.tokenRequests.map((r) => {
    const token = isAddress(r.tokenAddress, { strict: false })
      ? registry.token(chain.id, r.tokenAddress)
      : registry.tokenBySymbol(chain.id, r.tokenAddress);
    if (!token) {
      throw new DomainError(
        'UNSUPPORTED_TOKEN',
        isAddress(r.tokenAddress, { strict: false })
          ? `Token ${r.tokenAddress} not supported on chain ${chain.id}`
          : `Unsupported token ${r.tokenAddress} for chain ${chain.id}`,
      );
    }
    return { token, amount: r.amount === undefined ? undefined : BigInt(r.amount) };
  });
}

const matchesToken = (t: TokenInfo, names: string[]) =>
  names.some((n) => n.toLowerCase() === t.address.toLowerCase() || n.toLowerCase() === t.symbol.toLowerCase());

function matches(s: Source, f: AccessFilter): boolean {
  if (f.chainIds && !f.chainIds.includes(s.chainId)) return false;
  if (f.tokens && !matchesToken(s.token, f.tokens)) return false;
  if (f.chainTokens) {
    const names = f.chainTokens[String(s.chainId)];
    if (!names || !matchesToken(s.token, names)) return false;
  }
  return true;
}

function excluded(s: Source, f: AccessFilter): boolean {
  if (f.chainIds?.includes(s.chainId)) return true;
  if (f.tokens && matchesToken(s.token, f.tokens)) return true;
  const names = f.chainTokens?.[String(s.chainId)];
  return !!names && matchesToken(s.token, names);
}

/** The three access-list forms the client sends: `[{chainId, tokenAddress}]`, `{chainIds, tokens}` and `{chainTokens}`. */
export function applyAccessList(sources: Source[], list: IntentInput['accountAccessList']): Source[] {
  if (!list) return sources;
  if (Array.isArray(list))
    return sources.filter((s) => list.some((e) => e.chainId === s.chainId && matchesToken(s.token, [e.tokenAddress])));
  return sources.filter((s) => matches(s, list) && !(list.exclude && excluded(s, list.exclude)));
}

export const tokenId = (lockTag: string, token: string): string =>
  BigInt(`0x${lockTag.slice(2)}${token.slice(2).toLowerCase()}`).toString();

/** The furthest fill deadline a quote accepts (the longest reset period a lock can have); Permit2 funds have none. */
export const MAX_CUSTOM_DEADLINE_SECONDS = 2_592_000;

/**
 * The fill deadline of a quote made at `now`: `options.customDeadline` when set, which must be after `now` and at
 * most MAX_CUSTOM_DEADLINE_SECONDS ahead (so every deadline and `expires` derived from it stays a valid time).
 */
export function fillDeadlineOf(
  input: IntentInput,
  now: number,
  config: Pick<IntentConfig, 'fillWindowSeconds'>,
): number {
  const custom = input.options.customDeadline;
  if (custom === undefined) return now + config.fillWindowSeconds;
  if (custom <= now)
    throw new DomainError(
      'VALIDATION_ERROR',
      `customDeadline ${custom} is not in the future (now is ${now}, unix seconds)`,
    );
  if (custom > now + MAX_CUSTOM_DEADLINE_SECONDS)
    throw new DomainError(
      'VALIDATION_ERROR',
      `customDeadline must be at most ${now + MAX_CUSTOM_DEADLINE_SECONDS} (${MAX_CUSTOM_DEADLINE_SECONDS} seconds ahead)`,
    );
  return custom;
}

/** The cost of a plan as every version's quote answers carry it (each presents what it needs of it). */
export type IntentCost = ReturnType<typeof intentCost>;

export interface BuiltQuote {
  op: UnsignedIntentOp;
  cost: IntentCost;
  tokenRequirements?: Record<string, Record<string, unknown>>;
  reservations: { chainId: number; token: string; lockTag: string; amount: string }[];
  fillDeadline: number;
}

/** Lays the plan out in the exact shape the client signs: one element per origin chain. */
export function buildIntentOp(args: {
  input: IntentInput;
  plan: Plan;
  nonce: bigint;
  now: number;
  lockTag: string;
  config: IntentConfig;
  registry: ChainRegistry;
  market: { tokenPrices: Record<string, number>; gasPrices: Record<string, string> };
}): BuiltQuote {
  const { input, plan, nonce, now, config } = args;
  const sponsor = getAddress(input.account.address);
  const recipient = getAddress(input.recipient?.address ?? input.account.address);
  const using7579 = input.account.accountType !== 'EOA';
  const fillDeadline = fillDeadlineOf(input, now, config);
  // Locked funds can be force-withdrawn after the lock's reset period: nothing may stay claimable past it. A fill
  // may arrive up to the grace after the fill deadline, and its claim must still be possible then.
  const lockLimit = plan.funding === 'COMPACT' ? now + resetPeriodSeconds(args.lockTag) : Infinity;
  if (fillDeadline + config.fillGraceSeconds > lockLimit) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `customDeadline must be at most ${lockLimit - config.fillGraceSeconds} (the resource lock's reset period less the fill grace of ${config.fillGraceSeconds} seconds)`,
    );
  }
  const expires = Math.min(fillDeadline + Math.max(config.claimWindowSeconds, config.fillGraceSeconds), lockLimit);
  const tokenOut: [string, string][] = plan.received.map((r) => [
    tokenId(args.lockTag, r.token.address),
    r.target.toString(),
  ]);
  const destinationOps = {
    vt: zeroHash as Hex,
    ops: input.destinationExecutions.map((e) => ({ to: getAddress(e.to), value: String(e.value), data: e.data })),
  };
  const context: AccountContext = using7579
    ? {
        accountType: 'smartAccount',
        isDeployed: input.account.setupOps.length === 0,
        isERC7579: true,
        erc7579AccountType: 'unknown',
        erc7579AccountVersion: 'unknown',
      }
    : { accountType: 'EOA' };
  const byChain = new Map<number, typeof plan.spends>();
  for (const spend of plan.spends)
    byChain.set(spend.source.chainId, [...(byChain.get(spend.source.chainId) ?? []), spend]);

  const elements: Element[] = [...byChain.entries()].map(([chainId, spends]) => {
    const layer = plan.layers.get(chainId)!;
    const idsAndAmounts = spends.map((s): [string, string] => [
      tokenId(s.source.funding === 'COMPACT' ? s.source.lockTag : args.lockTag, s.source.token.address),
      s.amount.toString(),
    ]);
    return {
      arbiter: arbiterOn(config, chainId),
      chainId: String(chainId),
      idsAndAmounts,
      spendTokens: idsAndAmounts,
      beforeFill: false,
      ...(using7579 ? { smartAccountStatus: context } : {}),
      mandate: {
        recipient,
        tokenOut,
        destinationChainId: String(input.destinationChainId),
        fillDeadline: String(fillDeadline),
        minGas: '0',
        preClaimOps: { vt: zeroHash as Hex, ops: [] },
        destinationOps,
        qualifier: {
          settlementContext: { settlementLayer: layer, fundingMethod: plan.funding, using7579 },
          // The settlement context an arbiter reads on chain; the signature covers keccak256 of it (q).
          encodedVal: encodeAbiParameters(
            [{ type: 'string' }, { type: 'string' }, { type: 'bool' }, { type: 'uint256' }],
            [layer, plan.funding, using7579, nonce],
          ),
        },
      },
    };
  });

  const chainIds = [...new Set([input.destinationChainId, ...byChain.keys()])];
  const accountMeta = {
    ...input.account,
    accountContext: Object.fromEntries(chainIds.map((id) => [String(id), context])),
    requiredDelegations: {},
  };
  const op: UnsignedIntentOp = {
    sponsor,
    nonce: nonce.toString(),
    targetExecutionNonce: '0',
    expires: String(expires),
    elements,
    signedMetadata: {
      tokenPrices: args.market.tokenPrices,
      gasPrices: args.market.gasPrices,
      opGasParams: {},
      account: accountMeta,
      recipient: {
        address: recipient,
        accountType: input.recipient?.accountType ?? input.account.accountType,
        setupOps: [],
        accountContext: {},
        requiredDelegations: {},
      },
      fees: { sponsorFee: plan.cost.sponsoredUsd, protocolFees: {} },
      quotes: {},
      executionTokensReceived: [],
    },
  };
  return {
    op,
    cost: intentCost(plan, input.destinationChainId),
    tokenRequirements:
      input.account.accountType === 'EOA' && plan.funding === 'PERMIT2' ? permit2Approvals(plan) : undefined,
    reservations: plan.spends.map((s) => ({
      chainId: s.source.chainId,
      token: s.source.token.address.toLowerCase(),
      lockTag: s.source.lockTag,
      amount: s.amount.toString(),
    })),
    fillDeadline,
  };
}

/** An EOA pulls wallet funds through Permit2, so each spent token needs an allowance for it. */
function permit2Approvals(plan: Plan) {
  const out: Record<string, Record<string, unknown>> = {};
  for (const s of plan.spends) {
    out[String(s.source.chainId)] ??= {};
    out[String(s.source.chainId)][s.source.token.address] = {
      type: 'approval',
      amount: s.amount.toString(),
      spender: PERMIT2_ADDRESS,
    };
  }
  return out;
}

export function intentCost(plan: Plan, destinationChainId: number) {
  const tokensSpent: Record<string, Record<string, { locked: string; unlocked: string; version: number }>> = {};
  for (const s of plan.spends) {
    const chain = (tokensSpent[String(s.source.chainId)] ??= {});
    const entry = (chain[s.source.token.address] ??= { locked: '0', unlocked: '0', version: 1 });
    if (s.source.funding === 'COMPACT') entry.locked = (BigInt(entry.locked) + s.amount).toString();
    else entry.unlocked = (BigInt(entry.unlocked) + s.amount).toString();
  }
  return {
    hasFulfilledAll: true,
    tokensSpent,
    tokensReceived: plan.received.map((r) => ({
      tokenAddress: r.token.address,
      amountSpent: r.spent.toString(),
      targetAmount: r.target.toString(),
      destinationAmount: r.target.toString(),
      fee: r.fee.toString(),
      hasFulfilled: true,
    })),
    sponsorFee: plan.cost.sponsoredUsd,
    gasCost: {
      originChains: plan.cost.originGasUsd,
      destination: { chainId: destinationChainId, gasUSD: plan.cost.destinationGasUsd },
      totalUSD: plan.cost.originGasUsd.reduce((s, o) => s + o.gasUSD, 0) + plan.cost.destinationGasUsd,
    },
    feeBreakdownUSD: {
      settlement: plan.cost.layerFeeUsd,
      protocol: plan.cost.protocolFeeUsd,
      total: plan.cost.totalUsd,
    },
  };
}
