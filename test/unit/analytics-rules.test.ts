import {
  correlatorRule,
  dropInvalidTargets,
  fundingMethodRule,
  handoffRule,
  lastStepRule,
  outcomeRule,
  reasonFamily,
  SOLANA_MAINNET,
  SOLANA_SYSTEM_PROGRAM,
  sourceRule,
  validChain,
  validToken,
} from '../../src/analytics/rules';
import { validateEvent } from '../../src/analytics/validate';

const base = {
  session_id: 's1',
  modal: 'deposit',
  widget_version: '0.9.1',
  timestamp: 1_795_000_000_000,
  session_properties: { theme: 'dark' },
  funding_method: null,
};
const fields = (p: { field: string }[]) => p.map((x) => x.field);

test.each([
  ['account_setup_failed', 'account_setup'],
  ['account_setup', 'account_setup'],
  ['regional_methods_unavailable', 'regional_methods'],
  ['refund_pending', 'refund'],
  ['recovery_signature_rejected', 'recovery'],
  ['registration_timeout', 'registration'],
  ['route_not_found', 'route'],
  ['quote_expired', 'quote'],
  ['wallet_rejected', 'wallet'],
  ['partner_down', 'partner'],
  ['network', 'other'],
  ['accounts_locked', 'other'], // a prefix of a family name is not that family
  ['amounts', 'other'],
])('reason %s belongs to family %s (longest prefix, at an underscore)', (reason, family) => {
  expect(reasonFamily(reason)).toBe(family);
});

test.each([
  ['eip155:1', true],
  ['eip155:8453', true],
  [SOLANA_MAINNET, true],
  ['hypercore:spot', true],
  ['eip155:0', false],
  ['eip155:01', false],
  ['8453', false],
  ['solana:devnet', false],
  ['hypercore:perp', false],
  [8453, false],
])('chain %s valid: %s', (chain, ok) => {
  expect(validChain(chain)).toBe(ok);
});

test.each([
  ['0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', 'eip155:8453', 'source', true],
  ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:8453', 'source', false], // EVM identities are lowercase
  ['0x6d1e7cde53ba9467b783cb7c530ce054', 'hypercore:spot', 'source', true],
  ['0x6D1E7CDE53BA9467B783CB7C530CE054', 'hypercore:spot', 'source', false],
  ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', SOLANA_MAINNET, 'source', true], // a mint keeps its case
  [SOLANA_SYSTEM_PROGRAM, SOLANA_MAINNET, 'source', true], // native SOL
  ['native', SOLANA_MAINNET, 'source', false],
  ['native', 'eip155:1', 'target', true],
  ['native', 'eip155:1', 'source', false],
  ['0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', SOLANA_MAINNET, 'source', false],
  ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'eip155:1', 'target', false],
  ['0OIl-not-base58-at-all-000000000000000', SOLANA_MAINNET, 'target', false],
])('token %s on %s as %s valid: %s', (token, chain, role, ok) => {
  expect(validToken(token, chain, role as 'source' | 'target')).toBe(ok);
});

test.each([
  [{ event: 'deposit_modal_ui_outcome', outcome: 'abandoned', step: null }, ['step']],
  [{ event: 'deposit_modal_ui_outcome', outcome: 'abandoned', step: 'amount' }, []],
  [{ event: 'deposit_modal_ui_outcome', outcome: 'closed', step: null }, []],
  [{ event: 'deposit_modal_ui_outcome', outcome: 'closed', step: 'quote' }, []],
  [{ event: 'deposit_modal_ui_outcome', outcome: 'friction', step: 'amount', reason: 'amount_low' }, []],
  [
    { event: 'deposit_modal_ui_outcome', outcome: 'friction', step: 'amount', reason: 'amount_low', retryable: true },
    ['retryable'],
  ],
  [
    { event: 'deposit_modal_ui_outcome', outcome: 'failed', step: 'quote', reason: 'quote_expired', retryable: false },
    [],
  ],
  [{ event: 'deposit_modal_ui_outcome', outcome: 'failed', step: 'quote', reason: 'quote_expired' }, ['retryable']],
  [{ event: 'deposit_modal_ui_outcome', outcome: 'failed', step: 'quote', retryable: true }, ['reason']],
])('outcome rule %j → problems %j', (e, problems) => {
  expect(fields(outcomeRule(e))).toEqual(problems);
});

test.each([
  [
    { event: 'deposit_modal_ui_outcome', outcome: 'completed', step: 'wallet_processing', last_step: 'x' },
    ['last_step'],
  ],
  [{ event: 'deposit_modal_step_open', step: 'amount', last_step: 'x' }, ['last_step']],
  [{ event: 'withdraw_modal_handoff', last_step: null }, ['last_step']],
  [{ event: 'deposit_modal_step_open', step: 'amount' }, []],
])('22.10 last_step rule (every event type) %j → problems %j', (e, problems) => {
  expect(fields(lastStepRule(e))).toEqual(problems);
});

test.each([
  [
    {
      event: 'withdraw_modal_handoff',
      modal: 'withdraw',
      transaction_hash: '0xabc',
      managed_account: '0xdef',
      same_route: true,
    },
    [],
  ],
  [
    { event: 'withdraw_modal_handoff', modal: 'withdraw', transaction_hash: '0xabc' },
    ['managed_account', 'same_route'],
  ],
  [
    {
      event: 'withdraw_modal_handoff',
      modal: 'claim',
      deposit_id: 'd1',
      transaction_hash: null,
      refund_transaction_hash: null,
    },
    [],
  ],
  [
    { event: 'withdraw_modal_handoff', modal: 'claim', transaction_hash: '0x1' },
    ['deposit_id', 'refund_transaction_hash'],
  ],
  [{ event: 'withdraw_modal_handoff', modal: 'deposit', source_chain: 'eip155:1', source_token: 'native' }, []],
  [{ event: 'withdraw_modal_handoff', modal: 'deposit' }, ['source_chain', 'source_token']],
])('handoff rule %j → problems %j', (e, problems) => {
  expect(fields(handoffRule(e))).toEqual(problems);
});

test.each([
  [{ event: 'deposit_modal_correlator_observed', correlator_type: 'deposit_id', correlator_value: 'dep_1' }, []],
  [
    {
      event: 'deposit_modal_correlator_observed',
      correlator_type: 'partner_external_customer_id',
      correlator_value: 'acct:1',
    },
    [],
  ],
  [
    { event: 'deposit_modal_correlator_observed', correlator_type: 'email', correlator_value: 'x' },
    ['correlator_type'],
  ],
  [
    { event: 'deposit_modal_correlator_observed', correlator_type: 'transaction_hash', correlator_value: '' },
    ['correlator_value'],
  ],
])('correlator rule %j → problems %j', (e, problems) => {
  expect(fields(correlatorRule(e))).toEqual(problems);
});

test('funding_method: deposit events carry it (null before a method is chosen); others need not', () => {
  expect(fundingMethodRule({ event: 'deposit_modal_step_open', modal: 'deposit', funding_method: null })).toEqual([]);
  expect(fields(fundingMethodRule({ event: 'deposit_modal_step_open', modal: 'deposit' }))).toEqual(['funding_method']);
  expect(fundingMethodRule({ event: 'deposit_modal_step_open', modal: 'withdraw' })).toEqual([]);
});

test('source fields must be valid; target fields are dropped one by one', () => {
  expect(fields(sourceRule({ source_chain: 'eip155:x', source_token: 'not-a-token' }))).toEqual([
    'source_chain',
    'source_token',
  ]);
  const e: Record<string, unknown> = {
    target_chain: 'eip155:8453',
    target_token: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    step: 'quote',
  };
  expect(dropInvalidTargets(e)).toEqual(['target_token']);
  expect(e).toEqual({ target_chain: 'eip155:8453', step: 'quote' });
  const both: Record<string, unknown> = { target_chain: 'tron:1', target_token: 'native' };
  expect(dropInvalidTargets(both)).toEqual(['target_chain']); // `native` stands on its own
});

test('validateEvent: schema and rules together; the required fields of every funnel event', () => {
  expect(validateEvent({ ...base, event: 'deposit_modal_step_open', step: 'amount' }).ok).toBe(true);
  for (const missing of ['session_id', 'modal', 'widget_version', 'timestamp', 'session_properties']) {
    const e: Record<string, unknown> = { ...base, event: 'deposit_modal_step_open', step: 'amount' };
    delete e[missing];
    const v = validateEvent(e);
    expect([missing, v.ok]).toEqual([missing, false]);
  }
  expect(validateEvent({ ...base, event: 'deposit_modal_step_closed', step: 'amount' }).ok).toBe(false);
  expect(validateEvent({ ...base, event: 'deposit_modal_step_open' }).ok).toBe(false); // step_open carries step
  expect(
    validateEvent({
      event: 'analytics_ingest_failure',
      session_id: 's',
      widget_version: '1',
      timestamp: base.timestamp,
      reason: 'network',
    }).ok,
  ).toBe(true);
  const correlator = validateEvent({
    ...base,
    event: 'deposit_modal_correlator_observed',
    correlator_type: 'deposit_id',
    correlator_value: 'dep_9',
  });
  expect(correlator.ok && correlator.event.depositId).toBe('dep_9'); // the join key
  const failure = validateEvent({
    ...base,
    event: 'deposit_modal_ui_outcome',
    outcome: 'failed',
    step: 'quote',
    reason: 'account_setup_failed',
    retryable: true,
  });
  expect(failure.ok && failure.event.reasonFamily).toBe('account_setup');
});
