/** Ids joined into one call of `run`: those added within `afterMs` of the first (0: in the same turn of the loop). */
export class Batch {
  private ids: string[] = [];
  /** the batch being collected, or run */
  running?: Promise<void>;

  constructor(
    private readonly afterMs: number,
    private readonly run: (ids: string[]) => Promise<void>,
  ) {}

  add(id: string): Promise<void> {
    this.ids.push(id);
    this.running ??= new Promise<void>((resolve) =>
      this.afterMs ? setTimeout(resolve, this.afterMs) : setImmediate(resolve),
    ).then(async () => {
      const ids = this.ids;
      this.ids = [];
      this.running = undefined;
      await this.run(ids);
    });
    return this.running;
  }
}
