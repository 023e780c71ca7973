/**
 * The webhook types: the spec's nine (Events → Webhook types), `deposit-voided` (a reorg dropped a deposit's
 * transaction) and `verification-updated` (compliance).
 */
export const WEBHOOK_TYPES = [
  'deposit-received',
  'bridge-started',
  'bridge-delayed',
  'bridge-complete',
  'bridge-failed',
  'deposit-rejected',
  'deposit-delayed',
  'deposit-refunded',
  'deposit-voided',
  'onramp-order',
  'verification-updated',
] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

export const EVENT_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
