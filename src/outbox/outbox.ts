import type { Db } from '../db/types';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import * as keys from '../../workflows/contracts/search-attributes';
import {
  clearSignals,
  clearStarts,
  deadLetterCounts,
  type DeadLetterCounts,
  deadRows,
  dueSignals,
  dueStarts,
  type OutboxTable,
  type QueuedSignal,
  type QueuedStart,
  queuedStart,
  recordFailure,
  requeueDead,
  type DeadRow,
} from './store';
import { inSpan } from '../tracing/context';
import { Batch } from './batch';
import { refusal } from './refusal';

export interface OutboxOptions {
  /** Refusals by Temporal after which a row is dead-lettered. */
  maxAttempts: number;
  /** The lifecycle starts of the recorded intents and bundles among these nonces (for signals that await one). */
  owners: (nonces: string[]) => Promise<Map<string, QueuedStart>>;
  /**
   * Starts taken on and not yet performed past which a hand-off (`startSoon`) is left to the sweeper at once: while
   * Temporal is away or slow, a process that keeps handing starts over (the webhook lease loop, submits) holds at
   * most this many in memory instead of one more per hand-off for as long as the outage lasts.
   */
  maxPendingStarts: number;
}

const typed = (attrs: QueuedStart['searchAttributes']): SearchAttributePair[] =>
  Object.entries(attrs).map(
    ([name, value]) => ({ key: keys[name as keyof typeof keys], value }) as SearchAttributePair,
  );

/** What every start of a queued workflow sends, by signal or not: no id is reused once its workflow has closed. */
const startOptions = (start: QueuedStart, taskQueue: string) => ({
  workflowId: start.workflowId,
  taskQueue,
  args: start.args,
  workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
  typedSearchAttributes: typed(start.searchAttributes),
  staticSummary: start.summary,
});

/**
 * How long the row of a start handed over (startSoon), which nobody waits for, waits for others to be deleted with
 * it: under load one statement clears the starts of many submits instead of one each.
 */
const HANDED_OVER_CLEAR_MS = 50;

/** How many signals are in flight at once during a fan-out. */
const FAN_OUT = 32;

/** The longest wait before a refused row's next attempt, and before a signal awaiting its owner looks again. */
const MAX_BACKOFF_SECONDS = 300;
const MAX_AWAIT_SECONDS = 60;

/** The part of a sweep's batch kept for signals awaiting their owner (at least one row). */
const AWAITING_SHARE = 0.1;

/** A failed attempt as the row records it: `awaiting`, a signal whose owner is not recorded yet. */
type Failure = ReturnType<typeof refusal> | 'awaiting';

type Outcome = 'delivered' | 'gone' | 'awaiting';

const SIGNALS: OutboxTable = { table: 'signal_outbox', key: 'id' };
const STARTS: OutboxTable = { table: 'workflow_outbox', key: 'workflow_id' };

/**
 * The transactional outbox between PostgreSQL and Temporal. A request records its state change and the workflow
 * start or signals that must follow in one transaction; after the commit it performs them (a submit's start after
 * it has answered) and deletes the rows.
 * A process that dies in between leaves the rows, and the sweeper (a Temporal schedule, src/outbox/sweeper.ts)
 * performs them later. Starts are idempotent (deterministic ids, conflict policy use-existing, no reuse of a closed
 * id) and lifecycle signals are idempotent in the workflows, so performing a row twice is harmless.
 * A row Temporal refuses waits before its next attempt (`retry_at`, backing off), so failing rows never hold up the
 * others, and is dead-lettered after `maxAttempts` refusals (e.g. a run's 10,000-signal limit, which lifts when the
 * run continues as new), or at once when the refusal is final (an invalid request): kept for an operator (`npm run
 * cli -- outbox dead-letters` / `retry`), counted in `outbox_dead_letters`, and no longer retried. Temporal being
 * unreachable, slow or overloaded dead-letters nothing: those rows are tried again at the next pass.
 */
export class Outbox {
  /** The last signal under way per workflow: a process delivers one workflow's signals in the order it recorded them. */
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Starts this process is performing, by workflow id: a signal to one of them waits for it. */
  private readonly starting = new Map<string, Promise<void>>();
  /**
   * The rows of performed starts, deleted one statement per batch (losing a delete in a crash only makes the sweeper
   * repeat an idempotent start): at once when the caller waits for it, or after HANDED_OVER_CLEAR_MS.
   */
  private readonly clearing = new Batch(0, (ids) => clearStarts(this.db, ids));
  private readonly clearingHandedOver = new Batch(HANDED_OVER_CLEAR_MS, (ids) => clearStarts(this.db, ids));
  /** Signal deliveries under way, some of them not awaited by anyone (a request answered before them). */
  private readonly delivering = new Set<Promise<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly temporal: Client,
    private readonly taskQueue: string,
    private readonly options: OutboxOptions,
  ) {}

  /** Starts a queued workflow (at most once per id) and clears its row. */
  async start(start: QueuedStart): Promise<void> {
    await this.launch(start);
    await this.clearing.add(start.workflowId);
  }

  /**
   * The same, performed after the caller has answered: a submit costs its transaction, not a round trip through
   * Temporal. The row committed with the request's state keeps it durable: a failed start is told to `deferred`,
   * and a process that dies first leaves the row to the sweeper, or to the first signal sent to the workflow. With
   * `maxPendingStarts` already pending, the start is not taken on: `deferred` is told at once. Settles when the
   * start is done or deferred (never rejects); its row's delete follows in a batch of its own (a failed one leaves the
   * row to the sweeper, which finds the workflow started).
   */
  startSoon(start: QueuedStart, deferred: (err: unknown) => void): Promise<void> {
    if (this.starting.size >= this.options.maxPendingStarts && !this.starting.has(start.workflowId)) {
      deferred(
        new Error(`${this.starting.size} workflow starts already pending in this process (OUTBOX_MAX_PENDING_STARTS)`),
      );
      return Promise.resolve();
    }
    return this.launch(start).then(() => {
      this.clearingHandedOver.add(start.workflowId).catch(() => undefined);
    }, deferred);
  }

  /** Starts taken on and not yet performed (queued for a slot or under way). */
  get pendingStarts(): number {
    return this.starting.size;
  }

  /**
   * Waits for the starts, signals and row deletions under way (a stopping process calls this before closing its
   * clients: a call cut off by the close would leave the gRPC client's retry timer firing on a closed channel).
   */
  async drain(): Promise<void> {
    // A start or signal that finishes meanwhile queues its row's delete: wait until nothing is left.
    const clearing = () => [this.clearing.running, this.clearingHandedOver.running].filter((c) => c !== undefined);
    while (this.starting.size || this.delivering.size || clearing().length) {
      await Promise.allSettled([...this.starting.values(), ...this.delivering, ...clearing()]);
    }
  }

  private launch(start: QueuedStart): Promise<void> {
    let running = this.starting.get(start.workflowId);
    if (!running) {
      running = this.perform(start).finally(() => this.starting.delete(start.workflowId));
      this.starting.set(start.workflowId, running);
    }
    return running;
  }

  private perform(start: QueuedStart): Promise<void> {
    const attributes = { 'temporal.workflow_id': start.workflowId, 'temporal.workflow_type': start.workflowType };
    return inSpan(`outbox start ${start.workflowType}`, start.traceContext, attributes, () => this.startNow(start));
  }

  private async startNow(start: QueuedStart): Promise<void> {
    await this.slot();
    try {
      const delay = (start.delayUntil ?? 0) - Date.now();
      await this.temporal.workflow.start(start.workflowType, {
        ...startOptions(start, this.taskQueue),
        workflowIdConflictPolicy: 'USE_EXISTING',
        ...(delay > 0 ? { startDelay: delay } : {}),
      });
    } catch (e) {
      if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e; // it ran and finished: nothing left to do
    } finally {
      this.release();
    }
  }

  /**
   * Sends signals concurrently (at most FAN_OUT at once per process) and clears the rows that are done: delivered,
   * or addressed to a workflow that does not exist and is not queued for a start (a lifecycle that already ended).
   * A signal that carries its workflow's start goes as signal-with-start; for any other, a workflow still queued for
   * a start (its request's process died, or has not performed it yet) is started here from its row first. A signal
   * awaiting its owner goes once the owner is recorded, as signal-with-start. Each signal is chained behind the
   * previous one to the same workflow, synchronously, so one process keeps a workflow's events in order across calls.
   * A row that fails, or still awaits its owner, is kept for a later attempt (or dead-lettered: see above); the first
   * failure is thrown once every row is settled. Returns how many were delivered.
   */
  async deliver(signals: QueuedSignal[]): Promise<number> {
    const settling = this.settle(signals);
    this.delivering.add(settling);
    const { delivered, failures } = await settling.finally(() => this.delivering.delete(settling));
    if (failures.length) throw failures[0];
    return delivered;
  }

  private async settle(queued: QueuedSignal[]): Promise<{ delivered: number; failures: unknown[] }> {
    const signals = await this.withOwners(queued);
    const sends = signals.map((s) => {
      const attributes = { 'temporal.workflow_id': s.workflowId, 'temporal.signal': s.signal };
      const send = (this.tails.get(s.workflowId) ?? Promise.resolve()).then(() =>
        inSpan(`outbox signal ${s.signal}`, s.traceContext, attributes, () => this.send(s)),
      );
      // The next signal goes after this one whatever its outcome (a failure is counted below).
      const tail = send.catch(() => undefined);
      this.tails.set(s.workflowId, tail);
      void tail.then(() => this.tails.get(s.workflowId) === tail && this.tails.delete(s.workflowId));
      return send;
    });
    const outcomes = await Promise.allSettled(sends);
    const done = signals
      .filter(
        (_, i) =>
          outcomes[i].status === 'fulfilled' && (outcomes[i] as PromiseFulfilledResult<Outcome>).value !== 'awaiting',
      )
      .map((s) => s.id);
    if (done.length) {
      // A lost delete only repeats idempotent signals.
      await clearSignals(this.db, done);
    }
    const now = Date.now();
    const failures: unknown[] = [];
    await Promise.all(
      outcomes.map(async (o, i) => {
        const s = signals[i];
        if (o.status === 'rejected') {
          failures.push(o.reason);
          return this.failed(SIGNALS, s.id, o.reason);
        }
        if (o.value !== 'awaiting') return undefined;
        const expired = s.awaiting!.deadAfter <= now;
        return this.failed(
          SIGNALS,
          s.id,
          `no intent or bundle with nonce ${s.awaiting!.nonce}${expired ? ' before its wait ended' : ' yet'}`,
          expired ? 'final' : 'awaiting',
        );
      }),
    );
    return { delivered: outcomes.filter((o) => o.status === 'fulfilled' && o.value === 'delivered').length, failures };
  }

  /** Signals awaiting an owner, addressed to it when it is recorded by now. */
  private async withOwners(signals: QueuedSignal[]): Promise<QueuedSignal[]> {
    const nonces = [...new Set(signals.flatMap((s) => (s.awaiting ? [s.awaiting.nonce] : [])))];
    if (!nonces.length) return signals;
    const owners = await this.options.owners(nonces);
    return signals.map((s) => {
      const owner = s.awaiting && owners.get(s.awaiting.nonce);
      return owner ? { ...s, workflowId: owner.workflowId, start: owner, awaiting: undefined } : s;
    });
  }

  /**
   * Records a failed attempt at a row: dead-lettered on a final refusal or the last allowed one; else due again after
   * a backoff that doubles per counted attempt (refusals, and looks for an awaited owner), or at the next pass.
   */
  private async failed(row: OutboxTable, value: string, err: unknown, kind: Failure = refusal(err)): Promise<void> {
    const message =
      err instanceof Error
        ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}`
        : String(err);
    await recordFailure(this.db, row, value, {
      message: message.slice(0, 2000),
      counted: kind !== 'unavailable',
      kind,
      maxAttempts: this.options.maxAttempts,
      maxWaitSeconds: kind === 'awaiting' ? MAX_AWAIT_SECONDS : MAX_BACKOFF_SECONDS,
    });
  }

  private async send(s: QueuedSignal): Promise<Outcome> {
    if (s.awaiting) return 'awaiting';
    // A failed start is its caller's to record: the signal goes anyway (and starts the workflow if need be).
    await this.starting.get(s.workflowId)?.catch(() => undefined);
    if (s.start) {
      if (!(await this.signalWithStart(s, s.start))) return 'gone';
      await this.clearing.add(s.workflowId); // the workflow runs: a start still queued for it is done
      return 'delivered';
    }
    if (await this.signal(s)) return 'delivered';
    const queued = await queuedStart(this.db, s.workflowId);
    // No row: another process may have started it (and cleared its row) since the first attempt, so one more try.
    if (queued) await this.start(queued);
    return (await this.signal(s)) ? 'delivered' : 'gone'; // gone: no such workflow, or it has ended
  }

  /** False when no such workflow runs. */
  private signal(s: QueuedSignal): Promise<boolean> {
    return this.callInSlot(
      () => this.temporal.workflow.getHandle(s.workflowId).signal(s.signal, s.payload),
      WorkflowNotFoundError,
    );
  }

  /**
   * False when the workflow has closed. It starts the workflow (without delay: the signal is for it to handle) if
   * no start was performed yet; its queued row, performed later, then finds it running.
   */
  private signalWithStart(s: QueuedSignal, start: QueuedStart): Promise<boolean> {
    return this.callInSlot(
      () =>
        this.temporal.workflow.signalWithStart(start.workflowType, {
          ...startOptions(start, this.taskQueue),
          signal: s.signal,
          signalArgs: [s.payload],
        }),
      WorkflowExecutionAlreadyStartedError,
    );
  }

  /** A Temporal call in one of this process's slots: true when done, false when refused with `no` (the answer "no"). */
  private async callInSlot(fn: () => Promise<unknown>, no: abstract new (...args: never[]) => Error): Promise<boolean> {
    await this.slot();
    try {
      await fn();
      return true;
    } catch (e) {
      if (!(e instanceof no)) throw e;
      return false;
    } finally {
      this.release();
    }
  }

  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private async slot(): Promise<void> {
    if (this.inFlight < FAN_OUT) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve)); // the releaser hands its slot over
  }
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }

  /**
   * The sweeper's pass: rows due and older than `graceSeconds` (their own request had time to perform them), each
   * settled on its own, so a failing row never stops the pass nor the rows behind it. Rows are taken in the order
   * they came due (a row that failed waits behind those due before it), and signals awaiting their owner, which come
   * due again every minute for as long as their wait, take at most a tenth of the batch (AWAITING_SHARE) unless the
   * other rows leave room: however many pile up, they never hold a batch that rows of a dead process wait for.
   * The batch is then delivered in recorded order, so one workflow's signals go in the order they were queued.
   */
  async sweep(graceSeconds: number, limit = 1000): Promise<{ started: number; delivered: number; failed: number }> {
    const starts = await dueStarts(this.db, graceSeconds, limit);
    const started = await Promise.allSettled(starts.map((start) => this.start(start)));
    await Promise.all(
      started.map(async (o, i) => o.status === 'rejected' && this.failed(STARTS, starts[i].workflowId, o.reason)),
    );
    const owned = await dueSignals(this.db, graceSeconds, false, limit - Math.ceil(limit * AWAITING_SHARE));
    const signals = [...owned, ...(await dueSignals(this.db, graceSeconds, true, limit - owned.length))].sort((a, b) =>
      Number(BigInt(a.id) - BigInt(b.id)),
    );
    const { delivered, failures } = await this.settle(signals);
    return {
      started: started.filter((o) => o.status === 'fulfilled').length,
      delivered,
      failed: started.filter((o) => o.status === 'rejected').length + failures.length,
    };
  }

  /** Dead-lettered rows per table (the `outbox_dead_letters` metric). */
  deadLetterCounts(): Promise<DeadLetterCounts> {
    return deadLetterCounts(this.db);
  }
}

/**
 * Requeues dead-lettered rows (`all`, a signal row's id, or a start's workflow id) for the sweeper's next pass, with
 * a fresh count of attempts; a signal that awaits its owner gets its wait again. A row `refusal` gives a reason for
 * (one per row, in order) stays dead-lettered and is answered with that reason.
 */
export async function requeue(
  db: Db,
  which: string,
  ownerWaitSeconds: number,
  refusal: (rows: DeadRow[]) => Promise<(string | undefined)[]>,
) {
  const { signals, starts } = await deadRows(db, which);
  const reasons = await refusal([...signals, ...starts]);
  const refused = [...signals, ...starts].flatMap((r, i) => (reasons[i] ? [{ row: r.row, reason: reasons[i] }] : []));
  const kept = (rows: DeadRow[], offset: number) => rows.filter((_, i) => !reasons[offset + i]).map((r) => r.row);
  const requeued = await requeueDead(db, kept(signals, 0), kept(starts, signals.length), ownerWaitSeconds);
  return { requeued, refused };
}
