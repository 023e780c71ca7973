/**
 * The legacy bundle lifecycle's contract: it is the intent lifecycle (same input, signals and query,
 * ./intent-lifecycle.ts) under its own workflow id.
 */
export const bundleWorkflowId = (id: string) => `bundle-${id}`;
