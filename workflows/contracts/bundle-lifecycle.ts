/**
 * The legacy bundle lifecycle's contract: it is the intent lifecycle (same input, signals and query,
 * ./intent-lifecycle.ts) under its own workflow id.
 */
/** The workflow function's name: what a start sends as its type (workflows/index.ts exports it). */
export const bundleWorkflowType = 'bundleLifecycle';
export const bundleWorkflowId = (id: string) => `bundle-${id}`;
