/** What one project asks of a worker's attempt slots. */
export interface ProjectLoad {
  /** its attempts in flight in this worker */
  inFlight: number;
  /** it has due deliveries that wait for a slot */
  waiting: boolean;
  /** the most attempts it had in flight at once lately: kept for it while it is between deliveries */
  reserve: number;
}

/**
 * How many attempt slots each project may hold: `total` split max-min fairly. A project that waits asks for every
 * slot; one that does not asks for what it holds or lately held (its reserve), so a tenant that delivers steadily
 * finds its slots free when its next event comes instead of waiting for another project's slowest attempt to end.
 * What one project does not ask for goes to the others, the waiting ones getting equal shares of what is left
 * (rounded up, at least one). So no project's share exceeds that of a project that waits, and a project alone gets
 * every slot. A share bounds what a project may take, never what it holds: one that took every slot while it was
 * alone is left out of leases until its attempts end below its new share.
 */
export function fairShares(total: number, loads: ReadonlyMap<string, ProjectLoad>): Map<string, number> {
  const asks = [...loads]
    .map(([project, l]) => ({ project, ask: l.waiting ? Infinity : Math.max(l.inFlight, l.reserve) }))
    .sort((a, b) => a.ask - b.ask);
  const shares = new Map<string, number>();
  let left = total;
  for (const [i, { project, ask }] of asks.entries()) {
    const level = left / (asks.length - i);
    if (ask > level) {
      const share = Math.max(1, Math.ceil(level));
      for (const rest of asks.slice(i)) shares.set(rest.project, share);
      break;
    }
    shares.set(project, ask);
    left -= ask;
  }
  return shares;
}
