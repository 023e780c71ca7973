import type { QueuedStart } from '../outbox/store';
import {
  intentWorkflowId,
  intentWorkflowType,
  type LifecycleKind,
  type LifecycleStart,
} from '../../workflows/contracts/intent-lifecycle';
import { bundleWorkflowId, bundleWorkflowType } from '../../workflows/contracts/bundle-lifecycle';

/** Intents and legacy bundles share the lifecycle and its transition columns (src/bundles). */
export const owner = (id: string, kind: LifecycleKind = 'intent') => ({ kind, id });
export const TABLE: Record<LifecycleKind, string> = { intent: 'intents', bundle: 'bundles' };

export type StoredOperation = {
  expires: string;
  elements: {
    chainId: string;
    mandate: { destinationChainId: string; fillDeadline: string; recipient: string; tokenOut: [string, string][] };
  }[];
};

/** Where a stored operation's funds come from and go to. */
export const chainsOf = (operation: StoredOperation) => ({
  originChainIds: [...new Set(operation.elements.map((e) => Number(e.chainId)))],
  destinationChainId: Number(operation.elements[0].mandate.destinationChainId),
});

/** The chains and deadlines of a stored operation, and the queued start of the lifecycle that tracks it (intent or bundle). */
export function lifecycleOf(
  kind: LifecycleKind,
  id: string,
  account: string,
  projectId: string,
  operation: StoredOperation,
  fillGraceSeconds: number,
) {
  const { originChainIds, destinationChainId } = chainsOf(operation);
  const fillDeadline = Number(operation.elements[0].mandate.fillDeadline);
  const start: QueuedStart = {
    workflowId: workflowIdOf(kind, id),
    workflowType: kind === 'intent' ? intentWorkflowType : bundleWorkflowType,
    args: [
      {
        id,
        originChainIds,
        fillDeadline,
        fillGraceSeconds,
        expires: Number(operation.expires),
      } satisfies LifecycleStart,
    ],
    searchAttributes: {
      IntentStatus: 'PENDING',
      Account: account,
      Project: projectId,
      Chains: [...new Set([...originChainIds, destinationChainId])].map(String),
    },
    summary: `${kind === 'intent' ? 'Intent' : 'Bundle'} ${id}: ${account} → chain ${destinationChainId}`,
    // Until a fill may no longer arrive, only an indexer event (a signal) gives the lifecycle something to do.
    delayUntil: (fillDeadline + fillGraceSeconds) * 1000,
  };
  return { start, originChainIds, destinationChainId, fillDeadline };
}

export const workflowIdOf = (kind: LifecycleKind, id: string) =>
  kind === 'intent' ? intentWorkflowId(id) : bundleWorkflowId(id);
