import { bodyAjv, type Schema } from '../http/schema';
import {
  correlatorRule,
  dropInvalidTargets,
  EVENT_TYPES,
  fundingMethodRule,
  handoffRule,
  lastStepRule,
  MODALS,
  OUTCOMES,
  outcomeRule,
  reasonFamily,
  sourceRule,
  type EventType,
  type Problem,
} from './rules';

const code: Schema = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' };
const text = (max: number): Schema => ({ type: 'string', minLength: 1, maxLength: max });
/** Fields every funnel event carries (spec), then what the types add; other fields are kept as they are. */
const eventSchema: Schema = {
  type: 'object',
  required: ['event', 'session_id', 'widget_version', 'timestamp'],
  properties: {
    event: { type: 'string', enum: [...EVENT_TYPES] },
    session_id: text(128),
    modal: { type: 'string', enum: [...MODALS] },
    widget_version: text(32),
    timestamp: {
      type: 'integer',
      minimum: 1_577_836_800_000,
      maximum: 4_102_444_800_000,
      description: 'Unix milliseconds',
    },
    session_properties: { type: 'object', maxProperties: 50 },
    funding_method: { anyOf: [code, { type: 'null' }] },
    step: { anyOf: [code, { type: 'null' }] },
    outcome: { type: 'string', enum: [...OUTCOMES] },
    reason: code,
    retryable: { type: 'boolean' },
    deposit_id: text(128),
  },
  if: { properties: { event: { not: { const: 'analytics_ingest_failure' } } } },
  then: { required: ['modal', 'session_properties'] },
  else: { required: ['reason'] },
  allOf: [
    { if: { properties: { event: { const: 'deposit_modal_step_open' } } }, then: { required: ['step'] } },
    { if: { properties: { event: { const: 'deposit_modal_ui_outcome' } } }, then: { required: ['outcome'] } },
  ],
};
const check = bodyAjv.compile(eventSchema);

export interface AcceptedEvent {
  event: EventType;
  sessionId: string;
  modal: string | null;
  step: string | null;
  outcome: string | null;
  reason: string | null;
  reasonFamily: string | null;
  fundingMethod: string | null;
  depositId: string | null;
  occurredAt: Date;
  /** the event as accepted (invalid target fields left out) */
  data: Record<string, unknown>;
}

export type Verdict = { ok: true; event: AcceptedEvent; dropped: string[] } | { ok: false; problems: Problem[] };

const RULES = [lastStepRule, fundingMethodRule, outcomeRule, handoffRule, correlatorRule, sourceRule];

/** One event through the schema and the rules. */
export function validateEvent(raw: unknown): Verdict {
  if (!check(raw)) {
    return {
      ok: false,
      problems: (check.errors ?? [])
        .filter((e) => e.keyword !== 'if')
        .map((e) => ({
          field: (e.instancePath.slice(1) || (e.params as { missingProperty?: string }).missingProperty) ?? '',
          message: e.message ?? 'is invalid',
        })),
    };
  }
  const e = { ...(raw as Record<string, unknown>) };
  const problems = RULES.flatMap((rule) => rule(e));
  if (problems.length) return { ok: false, problems };
  const dropped = dropInvalidTargets(e);
  const reason = typeof e.reason === 'string' ? e.reason : null;
  const depositId =
    typeof e.deposit_id === 'string'
      ? e.deposit_id
      : e.correlator_type === 'deposit_id'
        ? (e.correlator_value as string)
        : null;
  return {
    ok: true,
    dropped,
    event: {
      event: e.event as EventType,
      sessionId: e.session_id as string,
      modal: (e.modal as string | undefined) ?? null,
      step: (e.step as string | null | undefined) ?? null,
      outcome: (e.outcome as string | undefined) ?? null,
      reason,
      reasonFamily: reason === null ? null : reasonFamily(reason),
      fundingMethod: (e.funding_method as string | null | undefined) ?? null,
      depositId,
      occurredAt: new Date(e.timestamp as number),
      data: e,
    },
  };
}
