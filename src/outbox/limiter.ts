/** At most `limit` calls at once; the others wait their turn in the order they came. */
export class Limiter {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inFlight < this.limit) this.inFlight++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve)); // the releaser hands its place over
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }
}
