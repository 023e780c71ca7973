import { DomainError } from '../errors';
import type { Services } from '../http/services';
import type { ClaimSigners } from './claim-authorization';
import type { QuoteDeps } from './quote-service';
import type { SubmitDeps } from './submit';
import { splitIntents } from './split';
import { liquidityOn } from './store';
import { leftToSweeper } from '../outbox/left-to-sweeper';
import { intentWorkflowType } from '../../workflows/contracts/intent-lifecycle';

/** What signs a claim authorization: the allocator, and the fill attester where arbiters are configured. */
export const claimSigners = (s: Services): ClaimSigners => ({
  compact: s.config.allocator.compactAddress,
  allocator: s.allocator,
  ...(s.attester ? { attester: { account: s.attester, arbiters: s.config.intents.arbiters, rpc: s.rpc } } : {}),
});

export const quoteDeps = (s: Services): QuoteDeps => ({
  registry: s.registry,
  config: s.config,
  lockTag: s.defaultLockTag,
  orchestrator: s.orchestrator,
  nonces: s.nonces,
  rpc: s.rpc,
});

export const submitDeps = (s: Services): SubmitDeps => ({
  db: s.db,
  outbox: s.outbox,
  verify: { compactContract: s.config.intents.compactSigningContract, rpc: s.rpc },
  fillGraceSeconds: s.config.intents.fillGraceSeconds,
  proofDays: s.config.allocator.proofDays,
  onStart() {
    s.metrics.workflowStarts.inc({ workflow: intentWorkflowType });
  },
  startDeferred: (id) => leftToSweeper(s.logger, 'lifecycle start', { id }),
});

const decimal = (m: Record<string, bigint>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.toString()]));

/**
 * Splits requested amounts over the destination's relayer liquidity. A shortfall is INSUFFICIENT_LIQUIDITY with the
 * figures as `details` (alps answers them at the top level, blanc in its envelope).
 */
export async function splitOrRefuse(
  s: Services,
  chainId: number,
  tokens: Record<string, string>,
  layers?: string[],
): Promise<Record<string, string>[]> {
  if (!s.registry.chain(chainId)) throw new DomainError('UNSUPPORTED_CHAIN', `Unsupported chain ${chainId}`);
  const requested = Object.fromEntries(Object.entries(tokens).map(([t, a]) => [t, BigInt(a)]));
  const result = splitIntents(requested, await liquidityOn(s.db, chainId), layers);
  if (result.ok) return result.intents.map(decimal);
  const refused = { availableIntents: result.availableIntents.map(decimal), unfillable: decimal(result.unfillable) };
  throw new DomainError('INSUFFICIENT_LIQUIDITY', 'Insufficient liquidity', { details: refused });
}
