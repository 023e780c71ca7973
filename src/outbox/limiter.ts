/**
 * At most `limit` calls at once; the others wait their turn in the order they came, those that can wait (`deferrable`)
 * behind every other.
 */
export class Limiter {
  private inFlight = 0;
  private readonly waiting = { now: [] as (() => void)[], deferrable: [] as (() => void)[] };

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>, deferrable = false): Promise<T> {
    if (this.inFlight < this.limit) this.inFlight++;
    else await new Promise<void>((resolve) => this.waiting[deferrable ? 'deferrable' : 'now'].push(resolve)); // the releaser hands its place over
    try {
      return await fn();
    } finally {
      const next = this.waiting.now.shift() ?? this.waiting.deferrable.shift();
      if (next) next();
      else this.inFlight--;
    }
  }
}
