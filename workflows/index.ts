export { intentLifecycle } from './intent-lifecycle';
export { bundleLifecycle } from './bundle-lifecycle';
export { sweepOutbox } from './sweep-outbox';
export { holdWithdrawal } from './withdrawal';
export { deliverWebhook } from './webhook-delivery';
export { verifyCustomer } from './verification';
export { processDeposit, refundDeposit } from './deposit';
export { pruneStorage } from './prune-storage';
export { followChain } from './follow-chain';
