import { ApiError } from '../http/errors';
import type { Services } from '../http/services';
import { ERROR_CODES } from '../versions/envelope';
import type { QuoteDeps, QuoteOutcome } from './quote-service';
import type { SubmitDeps } from './submit';
import { splitIntents } from './split';
import { liquidityOn } from './store';
import { leftToSweeper } from '../outbox/left-to-sweeper';
import { intentWorkflowType } from '../../workflows/contracts/intent-lifecycle';

/** A refused quote: alps shows the message the client maps, blanc the code (same status in both: the code's). */
export function unwrap<T>(outcome: QuoteOutcome<T>): T {
  if (!outcome.ok) throw new ApiError(ERROR_CODES[outcome.code], outcome.message, { errors: [{ message: outcome.message }], code: outcome.code });
  return outcome.value;
}

export const quoteDeps = (s: Services): QuoteDeps => ({ registry: s.registry, config: s.config, lockTag: s.defaultLockTag, orchestrator: s.orchestrator, nonces: s.nonces });

export const submitDeps = (s: Services): SubmitDeps => ({
  db: s.db,
  outbox: s.outbox,
  verify: { compactContract: s.config.intents.compactSigningContract, env: process.env },
  fillGraceSeconds: s.config.intents.fillGraceSeconds,
  proofDays: s.config.allocator.proofDays,
  onStart() {
    s.metrics.workflowStarts.inc({ workflow: intentWorkflowType });
  },
  startDeferred: (id) => leftToSweeper(s.logger, 'lifecycle start', { id }),
});

const decimal = (m: Record<string, bigint>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.toString()]));

/**
 * Splits requested amounts over the destination's relayer liquidity. A shortfall is one 422 for both versions:
 * alps renders its `body`, blanc the envelope with the same figures as `details`.
 */
export async function splitOrRefuse(s: Services, chainId: number, tokens: Record<string, string>, layers?: string[]): Promise<Record<string, string>[]> {
  if (!s.registry.chain(chainId)) throw new ApiError(400, `Unsupported chain ${chainId}`, { code: 'UNSUPPORTED_CHAIN' });
  const requested = Object.fromEntries(Object.entries(tokens).map(([t, a]) => [t, BigInt(a)]));
  const result = splitIntents(requested, await liquidityOn(s.db, chainId), layers);
  if (result.ok) return result.intents.map(decimal);
  const refused = { availableIntents: result.availableIntents.map(decimal), unfillable: decimal(result.unfillable) };
  throw new ApiError(422, 'Insufficient liquidity', { code: 'INSUFFICIENT_LIQUIDITY', details: refused, body: { error: 'INSUFFICIENT_LIQUIDITY', ...refused } });
}
