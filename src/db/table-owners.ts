/**
 * The feature (folder under src/) that owns each table: only its store modules insert, update or delete its rows;
 * another feature asks it through a function named for what it needs (reads may join across). A new table gets its
 * owner here; test/unit/table-owners.test.ts checks every write statement in src/ against this map.
 */
export const TABLE_OWNERS: Record<string, string> = {
  // the ledger: holds on balances, and the allocator nonces intents and withdrawals are signed with
  allocator_nonces: 'ledger',
  reservations: 'ledger',
  // the intent core: quotes, and what spends them as an intent or as a legacy host's bundle
  quotes: 'intents',
  intents: 'intents',
  bundles: 'intents',
  bundle_events: 'intents',
  withdrawals: 'withdrawals',
  withdrawal_idempotency_keys: 'withdrawals',
  deposits: 'deposits',
  deposit_accounts: 'deposits',
  deposit_account_nonces: 'deposits',
  deposit_sessions: 'deposits',
  deposit_withdrawals: 'deposits',
  unsupported_transfers: 'deposits',
  // what indexers report: balances, prices, gas, liquidity, and the dedupe of lifecycle events
  indexer_events: 'ingestion',
  wallet_balances: 'ingestion',
  lock_balances: 'ingestion',
  unconfirmed_balances: 'ingestion',
  forced_withdrawals: 'ingestion',
  prices: 'ingestion',
  gas_prices: 'ingestion',
  relayer_liquidity: 'ingestion',
  lifecycle_event_keys: 'ingestion',
  projects: 'projects',
  api_keys: 'projects',
  project_accounts: 'projects',
  project_account_allowances: 'projects',
  sponsored_intents: 'projects',
  // written by rate-limiter-flexible (src/projects/rate-limits.ts)
  rate_limits: 'projects',
  workflow_outbox: 'outbox',
  signal_outbox: 'outbox',
  webhook_endpoints: 'webhooks',
  webhook_events: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_attempts: 'webhooks',
  compliance_customers: 'compliance',
  compliance_sessions: 'compliance',
  verifications: 'compliance',
  verification_claims: 'compliance',
  verification_callbacks: 'compliance',
  sandbox_applicants: 'compliance',
  analytics_events: 'analytics',
  analytics_fold_queue: 'analytics',
  analytics_funnel_days: 'analytics',
  analytics_funnel_sessions: 'analytics',
  relayer_keys: 'relayers',
};
