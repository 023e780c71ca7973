import type { IntentStatus } from './intent-state';
import type { LifecycleStart } from './contracts/intent-lifecycle';
import { runLifecycle } from './intent-lifecycle';

/**
 * One accepted legacy bundle: the intent lifecycle itself (same signals, timers, durability and reservation
 * handling), persisting to `bundles`. Its states are the intent's; the legacy presenter renames them
 * (src/bundles/presenter.ts).
 */
export async function bundleLifecycle(start: LifecycleStart): Promise<IntentStatus> {
  return runLifecycle(start, 'bundle');
}
