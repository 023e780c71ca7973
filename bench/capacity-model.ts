/**
 * The capacity model's arithmetic: from what one operation costs (CPU ms per process kind, PostgreSQL rows written
 * per table; bench/capacity.ts measures both), what a rate of submits with their lifecycles needs.
 */

/** One measured row: an operation's CPU ms per process kind and PostgreSQL rows written per table. */
export interface OperationCost {
  cpuMs: Record<string, number>;
  rows: Record<string, number>;
}

/** What a rate of submits needs: busy cores per process kind and rows written per second per table. */
export interface Demand {
  cores: Record<string, number>;
  writesPerSecond: Record<string, number>;
}

/**
 * The demand of `submitsPerSecond` submits, each bringing `mix[op]` operations of each measured row (one quote, one
 * submit with its lifecycle, two balance events, one webhook delivery, say).
 */
export function demand(submitsPerSecond: number, costs: Record<string, OperationCost>, mix: Record<string, number>) {
  const result: Demand = { cores: {}, writesPerSecond: {} };
  const add = (into: Record<string, number>, key: string, value: number) => (into[key] = (into[key] ?? 0) + value);
  for (const [op, perSubmit] of Object.entries(mix)) {
    const cost = costs[op];
    if (!cost) throw new Error(`no measured row for ${op}`);
    const rate = submitsPerSecond * perSubmit;
    for (const [proc, ms] of Object.entries(cost.cpuMs)) add(result.cores, proc, (rate * ms) / 1000);
    for (const [table, n] of Object.entries(cost.rows)) add(result.writesPerSecond, table, rate * n);
  }
  return result;
}

/**
 * Processes (or cores to provision) for `busyCores` of work, each kept at `utilisation` of a core so that a burst or
 * a lost process does not saturate the rest: a Node process runs its JavaScript on one core.
 */
export const processesFor = (busyCores: number, utilisation = 0.6) => Math.max(1, Math.ceil(busyCores / utilisation));
