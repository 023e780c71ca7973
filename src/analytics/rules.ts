/**
 * The widget's analytics rules (spec: Client analytics), as small pure functions the validator composes. Each is
 * unit-tested on its own (test/unit/analytics-rules.test.ts).
 */

export const EVENT_TYPES = [
  'deposit_modal_step_open',
  'deposit_modal_ui_outcome',
  'deposit_modal_correlator_observed',
  'withdraw_modal_handoff',
  'analytics_ingest_failure',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const MODALS = ['deposit', 'withdraw', 'claim'] as const;
export const OUTCOMES = ['completed', 'abandoned', 'closed', 'friction', 'failed'] as const;
export const CORRELATOR_TYPES = [
  'deposit_address',
  'transaction_hash',
  'deposit_id',
  'partner_external_customer_id',
] as const;

/** The spec's reason families. Matched longest first and only at an underscore boundary, never split at the first `_`. */
export const REASON_FAMILIES = [
  'account_setup',
  'amount',
  'exchange',
  'lookup',
  'migration',
  'modal',
  'processor',
  'provider',
  'quote',
  'recipient',
  'recovery',
  'refund',
  'regional_methods',
  'registration',
  'route',
  'signature',
  'submission',
  'partner',
  'transfer',
  'wallet',
] as const;
const BY_LENGTH = [...REASON_FAMILIES].sort((a, b) => b.length - a.length);

/** A reason's family: the longest family that is the whole reason or a prefix ending at `_`; `other` when none is. */
export function reasonFamily(reason: string): string {
  return BY_LENGTH.find((f) => reason === f || reason.startsWith(`${f}_`)) ?? 'other';
}

export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
export const SOLANA_SYSTEM_PROGRAM = '11111111111111111111111111111111';

/** CAIP-2 chains the widget reports: `eip155:<id>`, Solana mainnet, `hypercore:spot`. */
export function validChain(chain: unknown): chain is string {
  return (
    typeof chain === 'string' &&
    (/^eip155:[1-9][0-9]{0,18}$/.test(chain) || chain === SOLANA_MAINNET || chain === 'hypercore:spot')
  );
}

/**
 * A token's on-chain identity on its chain: EVM and HyperCore lowercase hex, a Solana mint as base58 with its case
 * (native SOL is the system-program mint); `native` only as a target. Without a valid chain, any of the forms.
 */
export function validToken(token: unknown, chain: string | undefined, role: 'source' | 'target'): boolean {
  if (typeof token !== 'string') return false;
  if (token === 'native') return role === 'target';
  const evm = /^0x[0-9a-f]{40}$/.test(token);
  const core = /^0x[0-9a-f]{1,64}$/.test(token);
  const mint = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(token);
  if (!chain) return evm || core || mint;
  if (chain.startsWith('eip155:')) return evm;
  if (chain === 'hypercore:spot') return core;
  return mint;
}

export interface Problem {
  field: string;
  message: string;
}

/** Deposit events carry `funding_method` at the top level, null until the user picks one. */
export function fundingMethodRule(e: Record<string, unknown>): Problem[] {
  if (e.modal !== 'deposit' || e.event === 'analytics_ingest_failure') return [];
  return 'funding_method' in e
    ? []
    : [{ field: 'funding_method', message: 'deposit events carry funding_method (null before a method is selected)' }];
}

/**
 * Outcome rules: abandonment always has a step; a close has
 * its latest step, or null only before the funnel; friction is `step` + `reason` without `retryable`; a failure is
 * `step` + `reason` + `retryable`.
 */
export function outcomeRule(e: Record<string, unknown>): Problem[] {
  if (e.event !== 'deposit_modal_ui_outcome') return [];
  const p: Problem[] = [];
  const needsStep = e.outcome !== 'closed';
  if (needsStep && (typeof e.step !== 'string' || !e.step))
    p.push({ field: 'step', message: `a ${e.outcome} outcome has a non-null step` });
  if (e.outcome === 'friction' || e.outcome === 'failed') {
    if (typeof e.reason !== 'string') p.push({ field: 'reason', message: `${e.outcome} carries a reason` });
  }
  if (e.outcome === 'friction' && 'retryable' in e)
    p.push({ field: 'retryable', message: 'friction has no retryable' });
  if (e.outcome === 'failed' && typeof e.retryable !== 'boolean')
    p.push({ field: 'retryable', message: 'a failure says whether it is retryable' });
  return p;
}

/** Position comes from `step` on every event type: `last_step` does not exist, and is refused wherever it appears. */
export function lastStepRule(e: Record<string, unknown>): Problem[] {
  return 'last_step' in e
    ? [{ field: 'last_step', message: 'position is read from step; last_step does not exist' }]
    : [];
}

/** Handoffs: a withdraw adds its transaction, managed account and same_route; a claim carries the deposit_id join key. */
export function handoffRule(e: Record<string, unknown>): Problem[] {
  if (e.event !== 'withdraw_modal_handoff') return [];
  const p: Problem[] = [];
  const need = (field: string, ok: (v: unknown) => boolean, what: string) => {
    if (!(field in e) || !ok(e[field])) p.push({ field, message: `a ${e.modal} handoff carries ${field} (${what})` });
  };
  const str = (v: unknown) => typeof v === 'string' && v.length > 0;
  const strOrNull = (v: unknown) => v === null || str(v);
  if (e.modal === 'withdraw') {
    need('transaction_hash', str, 'string');
    need('managed_account', str, 'string');
    need('same_route', (v) => typeof v === 'boolean', 'boolean');
  } else if (e.modal === 'claim') {
    need('deposit_id', str, 'string');
    need('transaction_hash', strOrNull, 'string or null');
    need('refund_transaction_hash', strOrNull, 'string or null');
  } else {
    // A transfer handoff, published once the source picker settled: it names the source.
    need('source_chain', str, 'CAIP-2');
    need('source_token', str, 'token identity');
  }
  return p;
}

/** A correlator observation names one of the four types and its value. */
export function correlatorRule(e: Record<string, unknown>): Problem[] {
  if (e.event !== 'deposit_modal_correlator_observed') return [];
  const p: Problem[] = [];
  if (!(CORRELATOR_TYPES as readonly unknown[]).includes(e.correlator_type))
    p.push({ field: 'correlator_type', message: `one of ${CORRELATOR_TYPES.join(', ')}` });
  if (typeof e.correlator_value !== 'string' || !e.correlator_value)
    p.push({ field: 'correlator_value', message: 'a non-empty string' });
  return p;
}

/** Source fields must be right (the event is refused otherwise). */
export function sourceRule(e: Record<string, unknown>): Problem[] {
  const p: Problem[] = [];
  if ('source_chain' in e && !validChain(e.source_chain))
    p.push({ field: 'source_chain', message: 'a CAIP-2 chain (eip155:<id>, Solana mainnet or hypercore:spot)' });
  if (
    'source_token' in e &&
    !validToken(e.source_token, validChain(e.source_chain) ? e.source_chain : undefined, 'source')
  )
    p.push({ field: 'source_token', message: "the token's on-chain identity on source_chain" });
  return p;
}

/** Invalid target fields are left out one by one; the rest of the event stays. Returns the fields dropped. */
export function dropInvalidTargets(e: Record<string, unknown>): string[] {
  const dropped: string[] = [];
  if ('target_chain' in e && !validChain(e.target_chain)) {
    delete e.target_chain;
    dropped.push('target_chain');
  }
  if ('target_token' in e && !validToken(e.target_token, e.target_chain as string | undefined, 'target')) {
    delete e.target_token;
    dropped.push('target_token');
  }
  return dropped;
}
