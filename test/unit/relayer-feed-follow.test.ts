import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../src/env';
import { createLogger } from '../../src/logger';
import { followFeed } from '../../src/relayer-bot/feed';
import { RelayerApi } from '../../src/relayer-bot/service';

/** The order feed as the relayer follows it, against a server that answers each stream request with `answer`. */
async function follow(answer: (res: http.ServerResponse, attempt: number) => void) {
  let attempts = 0;
  const server = http.createServer((_req, res) => answer(res, ++attempts));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const abort = new AbortController();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const following = followFeed(
    new RelayerApi(url, 'rk_refused'),
    async () => {},
    createLogger('fatal', 'test'),
    abort.signal,
    10,
  );
  return { following, attempts: () => attempts, abort, close: () => server.close() };
}

test('a refused relayer key stops the relayer with a configuration error rather than knocking forever', async () => {
  const feed = await follow((res) =>
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"Invalid relayer key"}'),
  );
  await expect(feed.following).rejects.toThrow(ConfigError);
  await expect(feed.following).rejects.toThrow(/RELAYER_KEY is refused .* \(401\)/);
  expect(feed.attempts()).toBe(1);
  feed.close();
});

test('a feed that fails otherwise is opened again', async () => {
  const feed = await follow((res, attempt) => {
    res.writeHead(503).end();
    if (attempt === 2) feed.abort.abort();
  });
  await feed.following;
  expect(feed.attempts()).toBe(2);
  feed.close();
});
