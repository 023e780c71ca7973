import { randomUUID } from 'node:crypto';

/**
 * Simulated widget sessions (what the deposit/withdraw modal would send), with the funnel numbers they should
 * produce worked out from the session definitions themselves, not from the events.
 */
type Event = Record<string, unknown>;
const SEC = 1000;

/** The modal's opening of its amount step in a session of its own; `extra` sets any other field. */
export const stepOpenEvent = (extra: Event = {}) => ({
  event: 'deposit_modal_step_open',
  session_id: `session-${randomUUID()}`,
  modal: 'deposit',
  widget_version: '1.0.0',
  timestamp: Date.now(),
  session_properties: {},
  funding_method: null,
  step: 'amount',
  ...extra,
});

export interface Simulation {
  events: Event[];
  expected: Record<string, unknown>;
  depositIds: string[];
}

export function simulate(t0: number, prefix: string): Simulation {
  const events: Event[] = [];
  const session = (id: string, funding: string | null) => {
    const base = {
      session_id: `${prefix}-${id}`,
      modal: 'deposit',
      widget_version: '0.9.1',
      session_properties: { theme: 'light', locale: 'en' },
    };
    let method: string | null = null;
    return {
      open: (step: string, at: number) => {
        events.push({ ...base, event: 'deposit_modal_step_open', step, funding_method: method, timestamp: t0 + at });
        if (step === 'method') method = funding; // chosen on the method step: null before it
      },
      outcome: (outcome: string, step: string | null, at: number, extra: Event = {}) =>
        events.push({
          ...base,
          event: 'deposit_modal_ui_outcome',
          outcome,
          step,
          funding_method: method,
          timestamp: t0 + at,
          ...extra,
        }),
      correlate: (type: string, value: string, at: number) =>
        events.push({
          ...base,
          event: 'deposit_modal_correlator_observed',
          correlator_type: type,
          correlator_value: value,
          funding_method: method,
          timestamp: t0 + at,
        }),
    };
  };
  const depositIds: string[] = [];
  for (let i = 0; i < 40; i++) {
    const s = session(`wallet-${i}`, 'wallet');
    ['method', 'amount', 'quote', 'wallet_processing'].forEach((step, k) =>
      s.open(step, i * 1000 * SEC + k * 10 * SEC),
    );
    if (i < 10) {
      depositIds.push(`${prefix}-dep-${i}`);
      s.correlate('deposit_id', `${prefix}-dep-${i}`, i * 1000 * SEC + 33 * SEC);
    }
    s.outcome('completed', 'wallet_processing', i * 1000 * SEC + 35 * SEC);
  }
  for (let i = 0; i < 25; i++) {
    const s = session(`transfer-${i}`, 'transfer');
    ['method', 'amount', 'transfer_address', 'transfer_tracking'].forEach((step, k) =>
      s.open(step, i * 1000 * SEC + k * 10 * SEC + 500),
    );
    s.outcome('completed', 'transfer_tracking', i * 1000 * SEC + 90 * SEC + 500);
  }
  for (let i = 0; i < 20; i++) {
    const s = session(`abandoned-${i}`, 'wallet');
    s.open('method', i * 1000 * SEC + 700);
    s.open('amount', i * 1000 * SEC + 5 * SEC + 700);
    s.outcome('abandoned', 'amount', i * 1000 * SEC + 60 * SEC + 700);
  }
  for (let i = 0; i < 15; i++) {
    const s = session(`failed-${i}`, 'wallet');
    s.open('method', i * 1000 * SEC + 800);
    s.open('amount', i * 1000 * SEC + 5 * SEC + 800);
    s.outcome('friction', 'amount', i * 1000 * SEC + 7 * SEC + 800, { reason: 'amount_below_minimum' });
    s.open('quote', i * 1000 * SEC + 9 * SEC + 800);
    s.outcome('failed', 'quote', i * 1000 * SEC + 20 * SEC + 800, { reason: 'quote_expired', retryable: true });
  }
  for (let i = 0; i < 8; i++) {
    const s = session(`regional-${i}`, null);
    s.open('method', i * 1000 * SEC + 900);
    s.outcome('failed', 'method', i * 1000 * SEC + 4 * SEC + 900, {
      reason: 'regional_methods_unavailable',
      retryable: false,
    });
  }
  for (let i = 0; i < 10; i++) session(`closed-${i}`, null).outcome('closed', null, i * 1000 * SEC + 950); // closed before the funnel
  for (let i = 0; i < 12; i++) {
    events.push({
      session_id: `${prefix}-withdraw-${i}`,
      modal: 'withdraw',
      widget_version: '0.9.1',
      session_properties: {},
      event: 'withdraw_modal_handoff',
      timestamp: t0 + i * SEC,
      transaction_hash: `0x${i}`,
      managed_account: '0xabc',
      same_route: i % 2 === 0,
    });
  }

  const entered = 40 + 25 + 20 + 15 + 8;
  const step = (name: string, sessions: number, dropOff: number) => ({
    step: name,
    sessions,
    conversion: Math.round((sessions / entered) * 1000) / 1000,
    dropOff,
  });
  return {
    events,
    depositIds,
    expected: {
      sessions: entered,
      // Order: mean position of each step within sessions (quote and transfer_address tie at 3, then by name).
      steps: [
        step('method', 108, 8),
        step('amount', 100, 20),
        step('quote', 55, 15),
        step('transfer_address', 25, 0),
        step('transfer_tracking', 25, 0),
        step('wallet_processing', 40, 0),
      ],
      outcomes: { completed: 65, abandoned: 20, failed: 23, friction: 15, closed: 10 },
      failures: [
        { family: 'quote', count: 15 },
        { family: 'regional_methods', count: 8 },
      ],
      friction: [{ family: 'amount', count: 15 }],
      // 40 sessions take 35 s and 25 take 90 s.
      timeToComplete: { sessions: 65, p50Seconds: 35, p90Seconds: 90 },
    },
  };
}
