import { PassThrough } from 'node:stream';
import type { Db } from '../db/types';
import { DomainError } from '../errors';
import type { RelayerConfig } from './config';
import { presentOpenIntent } from './feed-presenter';
import { openIntents, type OpenIntentFilter } from './store';

/** How soon a client reconnects after a dropped stream (EventSource's `retry`). */
const RECONNECT_MS = 2000;

/** Intents read per statement while a stream catches up. */
const PAGE = 200;

/**
 * The order feed's server-sent events: each stream sends the open intents after its cursor as they open (`event:
 * intent`, `id:` the intent's cursor, so a client that reconnects with `Last-Event-ID` resumes after the last one it
 * got), looking again every `feedPollMs`, with a keep-alive comment every `feedKeepAliveSeconds`. A database that
 * does not answer is asked again at the next look. A relayer key holds at most `feedMaxStreams` on one process.
 * The API's shutdown ends every stream (`endAll`).
 */
export class OrderFeedStreams {
  private readonly open = new Set<() => void>();
  private readonly perRelayer = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly config: RelayerConfig,
  ) {}

  stream(
    relayerId: string,
    filter: Omit<OpenIntentFilter, 'after' | 'limit'>,
    after: OpenIntentFilter['after'],
  ): PassThrough {
    const held = this.perRelayer.get(relayerId) ?? 0;
    if (held >= this.config.feedMaxStreams)
      throw new DomainError(
        'TOO_MANY_REQUESTS',
        `This relayer key holds ${held} open streams, the most one API process serves it: close one first`,
      );
    this.perRelayer.set(relayerId, held + 1);
    const out = new PassThrough();
    // The headers go out with a first line: a client waits for them before anything has opened. `retry`: how soon
    // an EventSource reconnects after a drop.
    out.write(`retry: ${RECONNECT_MS}\n\n`);
    let cursor = after;
    let timer: NodeJS.Timeout | undefined;
    const keepAlive = setInterval(() => out.write(': keep-alive\n\n'), this.config.feedKeepAliveSeconds * 1000);
    const stop = () => {
      if (!this.open.delete(stop)) return;
      const left = (this.perRelayer.get(relayerId) ?? 1) - 1;
      if (left) this.perRelayer.set(relayerId, left);
      else this.perRelayer.delete(relayerId);
      clearTimeout(timer);
      clearInterval(keepAlive);
      out.end();
    };
    this.open.add(stop);
    out.on('close', stop);
    const look = async () => {
      // A client that does not read holds at most what it was sent last: nothing more is read for it until it does.
      if (out.writableNeedDrain) {
        timer = setTimeout(() => void look(), this.config.feedPollMs);
        return;
      }
      try {
        for (let more = true; more && this.open.has(stop);) {
          const rows = await openIntents(this.db, { ...filter, after: cursor, limit: PAGE });
          for (const intent of rows.map(presentOpenIntent))
            out.write(`id: ${intent.cursor}\nevent: intent\ndata: ${JSON.stringify(intent)}\n\n`);
          const last = rows.at(-1);
          if (last) cursor = { xid: last.openedXid, id: last.id };
          more = rows.length === PAGE;
        }
      } catch {
        // Looked again at the next turn: a stream outlives a database restart.
      }
      if (this.open.has(stop)) timer = setTimeout(() => void look(), this.config.feedPollMs);
    };
    void look();
    return out;
  }

  /** Ends every open stream: the server can close once their responses have. */
  endAll(): void {
    for (const stop of [...this.open]) stop();
  }
}
