export { ingestIndexerEvents } from './ingest-indexer-events';
export { intentLifecycle } from './intent-lifecycle';
export { quoteIntent } from './quote-intent';
export { holdWithdrawal, requestWithdrawal } from './withdrawal';
