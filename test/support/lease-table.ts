import type { LeaseStore } from '../../src/webhooks/lease-store';
import type { LeaseArgs, DueEndpoint } from '../../src/webhooks/leases';
import { LeaseLoop } from '../../src/webhooks/lease-loop';
import type { LeasedDelivery } from '../../src/webhooks/delivery-store';
import { AttemptSlots } from '../../src/webhooks/slots';

interface Row {
  seq: number;
  endpointId: string;
  projectId: string;
}

/**
 * The webhook_deliveries table as the lease loop sees it, in memory: due rows, and the leases (src/webhooks/lease-store.ts
 * says what LEASE_SQL takes: each target's oldest up to its room, each project's oldest up to its allowance, projects
 * in turns, up to the limit).
 */
export class LeaseTable implements LeaseStore {
  private rows: Row[] = [];
  private seq = 0;
  private onDue?: () => void;
  /** how many times the loop looked for due deliveries: once per lease it makes */
  looks = 0;
  /** every lease's arguments and what it took, in order (a look that found nothing to take makes none) */
  readonly leases: { args: LeaseArgs; took: LeasedDelivery[] }[] = [];

  /** Makes `n` deliveries to `endpointId` of `projectId` due, and notifies as a commit does. */
  emit(projectId: string, endpointId: string, n = 1): void {
    for (let i = 0; i < n; i++) this.rows.push({ seq: ++this.seq, endpointId, projectId });
    this.onDue?.();
  }

  async listen(onDue: () => void): Promise<void> {
    this.onDue = onDue;
  }

  async due(full: string[]): Promise<DueEndpoint[]> {
    this.looks++;
    const seen = new Map(this.rows.filter((r) => !full.includes(r.endpointId)).map((r) => [r.endpointId, r.projectId]));
    return [...seen].map(([endpointId, projectId]) => ({ endpointId, projectId }));
  }

  async lease(args: LeaseArgs): Promise<LeasedDelivery[]> {
    const turns = new Map<string, number>();
    const candidates = args.targets
      .flatMap((t) =>
        this.rows
          .filter((r) => r.endpointId === t.endpointId)
          .slice(0, t.room)
          .map((r) => ({ r, allowance: t.allowance })),
      )
      .sort((a, b) => a.r.seq - b.r.seq)
      .map(({ r, allowance }) => {
        const turn = (turns.get(r.projectId) ?? 0) + 1;
        turns.set(r.projectId, turn);
        return { r, turn, allowance };
      })
      .filter((c) => c.turn <= c.allowance)
      .sort((a, b) => a.turn - b.turn || a.r.seq - b.r.seq)
      .slice(0, args.limit)
      .map((c) => c.r);
    this.rows = this.rows.filter((r) => !candidates.includes(r));
    const took = candidates.map(
      (r) =>
        ({ eventId: `evt_${r.seq}`, endpointId: r.endpointId, projectId: r.projectId, round: 1 }) as LeasedDelivery,
    );
    this.leases.push({ args, took });
    return took;
  }

  async release(c: LeasedDelivery): Promise<void> {
    this.rows.push({ seq: Number(c.eventId.slice(4)), endpointId: c.endpointId, projectId: c.projectId });
    this.rows.sort((a, b) => a.seq - b.seq);
  }

  close(): void {}
}

/** Lets every promise and I/O callback the loop has queued run (the lease table answers at once). */
export async function settled(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A real LeaseLoop over a LeaseTable, whose attempts hang until `answer(eventId)`. It never polls (every lease
 * it makes was woken by a notification or a finishing attempt) and the clock stands still unless `clock.now` moves.
 */
export function leaseLoop(opts: { total: number; perEndpoint: number; reserveMs?: number }) {
  const table = new LeaseTable();
  const clock = { now: 0 };
  const slots = new AttemptSlots(opts.total, opts.perEndpoint, opts.reserveMs ?? 60_000, () => clock.now);
  const open = new Map<string, { lease: LeasedDelivery; answer: () => void }>();
  const attempt = (lease: LeasedDelivery) =>
    new Promise<void>((resolve) => open.set(lease.eventId, { lease, answer: resolve }));
  const log = {
    warn: (obj: object, msg: string) => {
      throw new Error(`${msg}: ${JSON.stringify(obj)}`);
    },
  };
  const loop = new LeaseLoop(table, attempt, { timeoutSeconds: 10, leaseSeconds: 30 }, slots, log, 3_600_000);
  return {
    table,
    slots,
    clock,
    loop,
    /** attempts under way, by project */
    open: (projectId: string) =>
      [...open.values()].filter((a) => a.lease.projectId === projectId).map((a) => a.lease.eventId),
    /** the receiver of `eventId` answers */
    async answer(eventId: string) {
      open.get(eventId)!.answer();
      open.delete(eventId);
      await settled();
    },
    async start() {
      loop.start();
      await settled();
    },
    async stop() {
      for (const a of open.values()) a.answer();
      open.clear();
      await loop.stop();
    },
  };
}
