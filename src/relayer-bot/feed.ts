import { ConfigError } from '../env';
import type { Logger } from '../logger';
import type { FeedIntent } from '../../workflows/relayer/contract';
import type { RelayerApi } from './service';

/** How long the relayer waits before it opens the stream again after a drop (the stream's own `retry`). */
const RECONNECT_MS = 2000;

/**
 * Every open intent of the order feed, handed to `onIntent` (which must be idempotent: an intent may come twice):
 * the stream of newly opened intents (`GET /relayer/intents/stream`), and, each time the stream opens without a
 * `Last-Event-ID`, the pages of the intents already open (the stream starts at the feed's head, so nothing between
 * is missed). A dropped stream is opened again with the last event's id, resuming right after it.
 */
export async function followFeed(
  api: RelayerApi,
  onIntent: (intent: FeedIntent) => Promise<void>,
  log: Logger,
  signal: AbortSignal,
  reconnectMs = RECONNECT_MS,
): Promise<void> {
  let lastEventId: string | undefined;
  while (!signal.aborted) {
    try {
      const res = await fetch(`${api.url}/relayer/intents/stream`, {
        headers: api.headers(lastEventId ? { 'last-event-id': lastEventId } : {}),
        signal,
      });
      // A refused key stays refused: the relayer stops rather than knock forever.
      if (res.status === 401)
        throw new ConfigError(`RELAYER_KEY is refused by ${api.url} (401): issue one with npm run cli -- relayers add`);
      if (!res.ok || !res.body) throw new Error(`the order feed answered ${res.status}: ${await res.text()}`);
      if (!lastEventId) {
        for (let cursor: string | undefined; ;) {
          const page = await api.page(cursor);
          for (const intent of page.intents) await onIntent(intent);
          if (page.intents.length < 200 || !page.nextCursor) break;
          cursor = page.nextCursor;
        }
      }
      let buffered = '';
      for await (const chunk of res.body.pipeThrough(new TextDecoderStream())) {
        buffered += chunk;
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const event = parseEvent(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
          if (event.type !== 'intent' || !event.data) continue;
          await onIntent(JSON.parse(event.data) as FeedIntent);
          if (event.id) lastEventId = event.id;
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ConfigError) throw e;
      log.warn({ err: e instanceof Error ? e.message : String(e) }, 'order feed dropped: reconnecting');
    }
    await new Promise((resolve) => setTimeout(resolve, reconnectMs));
  }
}

/** One server-sent event's fields (comments and `retry` are left out). */
function parseEvent(block: string): { type?: string; id?: string; data?: string } {
  const out: { type?: string; id?: string; data?: string } = {};
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const [field, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
    if (field === 'event') out.type = value;
    else if (field === 'id') out.id = value;
    else if (field === 'data') out.data = out.data === undefined ? value : `${out.data}\n${value}`;
  }
  return out;
}
