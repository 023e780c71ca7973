import type { ClaimStore } from '../../src/webhooks/claim-store';
import type { ClaimArgs, DueEndpoint } from '../../src/webhooks/claims';
import { DeliveryClaimer } from '../../src/webhooks/claimer';
import type { Claim } from '../../src/webhooks/deliver';
import { AttemptSlots } from '../../src/webhooks/slots';

interface Row {
  seq: number;
  endpointId: string;
  projectId: string;
}

/**
 * The webhook_deliveries table as the claim loop sees it, in memory: due rows, and the claims (src/webhooks/claims.ts
 * says what CLAIM_SQL takes: each target's oldest up to its room, each project's oldest up to its allowance, projects
 * in turns, up to the limit).
 */
export class ClaimTable implements ClaimStore {
  private rows: Row[] = [];
  private seq = 0;
  private onDue?: () => void;
  /** how many times the loop looked for due deliveries: once per claim it makes */
  looks = 0;
  /** every claim's arguments and what it took, in order (a look that found nothing to take makes none) */
  readonly claims: { args: ClaimArgs; took: Claim[] }[] = [];

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

  async claim(args: ClaimArgs): Promise<Claim[]> {
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
      (r) => ({ eventId: `evt_${r.seq}`, endpointId: r.endpointId, project_id: r.projectId, round: 1 }) as Claim,
    );
    this.claims.push({ args, took });
    return took;
  }

  async release(c: Claim): Promise<void> {
    this.rows.push({ seq: Number(c.eventId.slice(4)), endpointId: c.endpointId, projectId: c.project_id });
    this.rows.sort((a, b) => a.seq - b.seq);
  }

  close(): void {}
}

/** Lets every promise and I/O callback the loop has queued run (the claim table answers at once). */
export async function settled(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A real DeliveryClaimer over a ClaimTable, whose attempts hang until `answer(eventId)`. It never polls (every claim
 * it makes was woken by a notification or a finishing attempt) and the clock stands still unless `clock.now` moves.
 */
export function claimLoop(opts: { total: number; perEndpoint: number; reserveMs?: number }) {
  const table = new ClaimTable();
  const clock = { now: 0 };
  const slots = new AttemptSlots(opts.total, opts.perEndpoint, opts.reserveMs ?? 60_000, () => clock.now);
  const open = new Map<string, { claim: Claim; answer: () => void }>();
  const attempt = (claim: Claim) => new Promise<void>((resolve) => open.set(claim.eventId, { claim, answer: resolve }));
  const log = {
    warn: (obj: object, msg: string) => {
      throw new Error(`${msg}: ${JSON.stringify(obj)}`);
    },
  };
  const claimer = new DeliveryClaimer(
    table,
    attempt,
    { timeoutSeconds: 10, claimLeaseSeconds: 30 },
    slots,
    log,
    3_600_000,
  );
  return {
    table,
    slots,
    clock,
    claimer,
    /** attempts under way, by project */
    open: (projectId: string) =>
      [...open.values()].filter((a) => a.claim.project_id === projectId).map((a) => a.claim.eventId),
    /** the receiver of `eventId` answers */
    async answer(eventId: string) {
      open.get(eventId)!.answer();
      open.delete(eventId);
      await settled();
    },
    async start() {
      claimer.start();
      await settled();
    },
    async stop() {
      for (const a of open.values()) a.answer();
      open.clear();
      await claimer.stop();
    },
  };
}
