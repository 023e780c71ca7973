import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createProject } from '../../src/projects/api-keys';
import { createRelayerKey } from '../../src/relayers/keys';
import { listRelayerKeys, revokeRelayerKey } from '../../src/relayers/store';
import { ARB_USDC, BASE_USDC, fillEvent, getCompactTypedData, lockedSnapshot, TX } from '../support/fixtures';
import { Api, call, ingest, startApi, until } from '../support/harness';

/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const v1: any = require(path.join(sdkDir, 'orchestrator'));
const { createAuthProvider }: any = require(path.join(sdkDir, 'auth/provider'));

/**
 * The order feed and claim authorizations for relayers (docs/relayers.md), with keys the operator issues. Its own
 * database: the feed lists every project's open intents, and other suites' would be among them.
 */
let api: Api;
let relayerKey: string;
let projects: { apiKey: string; client: any }[];

beforeAll(async () => {
  api = await startApi({ ownDatabase: true, settings: { RELAYER_FEED_POLL_MS: '100', RELAYER_FEED_MAX_STREAMS: '2' } });
  relayerKey = (await createRelayerKey(api.db, 'feed-test')).relayerKey;
  const other = await createProject(api.db, 'other');
  projects = [api.apiKey, other.apiKey].map((apiKey) => ({
    apiKey,
    client: v1.getOrchestrator(createAuthProvider({ apiKey }), api.url),
  }));
});
afterAll(() => api.close());

/** An intent of project `p` (0 or 1) to Arbitrum USDC, quoted and submitted by the published client. */
async function submitted(p: number, amount = 1_000_000n) {
  const account = privateKeyToAccount(generatePrivateKey());
  await ingest(api, [lockedSnapshot(account.address, '5000000', { blockNumber: '1' })]);
  const { intentOp } = await projects[p].client.getIntentRoute({
    account: { address: account.address, accountType: 'EOA', setupOps: [] },
    destinationChainId: 42161,
    destinationExecutions: [],
    tokenRequests: [{ tokenAddress: ARB_USDC, amount }],
    options: { topupCompact: false, signatureMode: 1 },
  });
  const signature = await account.signTypedData(getCompactTypedData(intentOp));
  const { result } = await projects[p].client.submitIntent({
    ...intentOp,
    originSignatures: intentOp.elements.map(() => signature),
    destinationSignature: signature,
  });
  const id = result.id as string;
  // The feed shows an intent once every transaction that began before its submit has ended, in any database of the
  // server (docs/relayers.md); other suites' transactions can hold it back a moment.
  await until(`intent ${id} on the feed`, async () => {
    const page = await asRelayer('/relayer/intents?limit=200');
    return page.json.intents.some((i: { id: string }) => i.id === id) || undefined;
  });
  return { op: intentOp, id };
}

const asRelayer = (pathAndQuery: string, key = relayerKey) =>
  call(api, 'GET', pathAndQuery, { headers: { 'x-relayer-key': key, 'x-api-key': '' } });

test('the feed: open intents of every project in the order they were accepted, each with what its fill must pay', async () => {
  const a = await submitted(0);
  const b = await submitted(1, 2_000_000n);
  const page = await asRelayer('/relayer/intents');
  expect(page.status).toBe(200);
  expect(page.json.intents.map((i: { id: string }) => i.id)).toEqual([a.id, b.id]);
  const [first] = page.json.intents;
  const mandate = a.op.elements[0].mandate;
  expect(first.fill).toEqual({
    chainId: 42161,
    recipient: mandate.recipient.toLowerCase(),
    tokens: [{ token: ARB_USDC.toLowerCase(), amount: BigInt(mandate.tokenOut[0][1]).toString() }],
    fillDeadline: Number(mandate.fillDeadline),
  });
  expect(BigInt(first.fill.tokens[0].amount)).toBeGreaterThanOrEqual(1_000_000n);
  expect(first.operation.nonce).toBe(a.op.nonce);
  expect(first.signatures.originSignatures).toHaveLength(a.op.elements.length);
  expect(page.json.nextCursor).toBe(page.json.intents[1].cursor);

  // Filters: the destination chain and the token a fill pays.
  const ids = async (query: string) =>
    (await asRelayer(`/relayer/intents?${query}`)).json.intents.map((i: { id: string }) => i.id);
  expect(await ids('destinationChainId=42161')).toEqual([a.id, b.id]);
  expect(await ids('destinationChainId=10')).toEqual([]);
  expect(await ids(`token=${ARB_USDC}`)).toEqual([a.id, b.id]);
  expect(await ids(`token=${BASE_USDC}`)).toEqual([]);

  // A page at a time: the cursor continues after the last intent, and an empty page keeps it.
  const one = await asRelayer('/relayer/intents?limit=1');
  expect(one.json.intents.map((i: { id: string }) => i.id)).toEqual([a.id]);
  const next = await asRelayer(`/relayer/intents?limit=1&cursor=${one.json.nextCursor}`);
  expect(next.json.intents.map((i: { id: string }) => i.id)).toEqual([b.id]);
  const end = await asRelayer(`/relayer/intents?cursor=${next.json.nextCursor}`);
  expect(end.json).toEqual({ intents: [], nextCursor: next.json.nextCursor });
  const c = await submitted(0);
  expect((await asRelayer(`/relayer/intents?cursor=${next.json.nextCursor}`)).json.intents[0].id).toBe(c.id);

  // A filled intent is no longer open.
  expect((await ingest(api, [fillEvent(a.id, TX(41))])).status).toBe(200);
  expect(await ids('limit=200')).toEqual([b.id, c.id]);

  const bad = await asRelayer('/relayer/intents?cursor=bm90LWEtY3Vyc29y');
  expect([bad.status, bad.json.message]).toEqual([400, 'query.cursor is not a cursor this API issued']);
});

test("a relayer key reads any project's claim authorization, the same as the project's own, and nothing else of a project", async () => {
  const { id } = await submitted(1);
  const relayer = await asRelayer(`/relayer/intents/${id}/claim-authorization`);
  expect(relayer.status).toBe(200);
  const own = await call(api, 'GET', `/intent-operation/${id}/claim-authorization`, {
    headers: { 'x-api-key': projects[1].apiKey },
  });
  expect(relayer.json).toEqual(own.json);
  expect((await asRelayer('/relayer/intents/123456789/claim-authorization')).status).toBe(404);
  // Not a project's key: the project routes refuse it.
  const portfolio = await call(api, 'GET', `/accounts/${privateKeyToAccount(generatePrivateKey()).address}/portfolio`, {
    headers: { 'x-api-key': relayerKey },
  });
  expect([portfolio.status, portfolio.json.message]).toEqual([401, 'Invalid API key']);
  // And a project's key is no relayer key.
  expect((await asRelayer('/relayer/intents', api.apiKey)).status).toBe(401);
});

test('keys: missing, unknown and revoked keys are 401', async () => {
  const missing = await call(api, 'GET', '/relayer/intents');
  expect([missing.status, missing.json.message]).toEqual([401, 'Authentication is required']);
  const unknown = await asRelayer('/relayer/intents', 'rk_unknown');
  expect([unknown.status, unknown.json.message]).toEqual([401, 'Invalid relayer key']);
  const { relayerKey: doomed } = await createRelayerKey(api.db, 'revoked-relayer');
  await expect(createRelayerKey(api.db, 'revoked-relayer')).rejects.toThrow('A relayer named revoked-relayer exists');
  expect(await revokeRelayerKey(api.db, 'revoked-relayer')).toBe(true);
  // Not yet resolved by this process: the revocation holds at once (a cached key lapses within 30 s).
  expect((await asRelayer('/relayer/intents', doomed)).status).toBe(401);
  expect(await revokeRelayerKey(api.db, 'revoked-relayer')).toBe(false);
  const listed = await listRelayerKeys(api.db);
  expect(listed.map((k) => [k.name, k.revoked])).toEqual([
    ['feed-test', false],
    ['revoked-relayer', true],
  ]);
  expect(listed[1].keyPrefix).toBe(doomed.slice(0, 10));
  expect(listed[1].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});

/** An open order-feed stream: the intent events it sends, read as they come; `close` ends it from the client's side. */
async function openStream(query = '', lastEventId?: string) {
  const controller = new AbortController();
  const res = await fetch(`${api.url}/relayer/intents/stream${query}`, {
    headers: { 'x-relayer-key': relayerKey, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: controller.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  const events: { id: string; intent: { id: string } }[] = [];
  /** Reads until `count` intent events have come, and returns them. */
  const next = async (count: number) => {
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffered += value;
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const field = (name: string) => block.match(new RegExp(`^${name}: (.*)$`, 'm'))?.[1];
        if (field('event') === 'intent') events.push({ id: field('id')!, intent: JSON.parse(field('data')!) });
      }
    }
    return events.splice(0, count);
  };
  return { res, next, close: () => controller.abort() };
}

test('the stream: intents as they open, resumed after the last event a relayer got with Last-Event-ID', async () => {
  const stream = await openStream();
  expect(stream.res.status).toBe(200);
  expect(stream.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const openapi = (await call(api, 'GET', '/openapi.json')).json;
  expect(openapi.paths['/relayer/intents/stream'].get.responses['200'].content).toEqual({ 'text/event-stream': {} });
  expect(openapi.components.securitySchemes.relayerKey).toEqual({
    type: 'apiKey',
    in: 'header',
    name: 'x-relayer-key',
  });
  // It starts at the head: intents opened before it are the page's, not the stream's.
  const x = await submitted(0);
  const [first] = await stream.next(1);
  expect(first.intent.id).toBe(x.id);
  expect(first.id).toBe((first.intent as unknown as { cursor: string }).cursor);
  stream.close();

  // Disconnected, two more open; reconnecting after the last event gets exactly those, in order.
  const y = await submitted(1);
  const z = await submitted(0);
  const resumed = await openStream('', first.id);
  expect((await resumed.next(2)).map((e) => e.intent.id)).toEqual([y.id, z.id]);
  resumed.close();

  // Filtered as the page is: a stream of the token their fills pay sends them.
  const byToken = await openStream(`?token=${ARB_USDC}`, first.id);
  expect((await byToken.next(2)).map((e) => e.intent.id)).toEqual([y.id, z.id]);
  byToken.close();

  // Two open streams are this key's most (RELAYER_FEED_MAX_STREAMS here); closing one makes room.
  const held = [await openStream(), await openStream()];
  const third = await call(api, 'GET', '/relayer/intents/stream', { headers: { 'x-relayer-key': relayerKey } });
  expect(third.status).toBe(429);
  held[0].close();
  const room = async () => {
    const controller = new AbortController();
    const res = await fetch(`${api.url}/relayer/intents/stream`, {
      headers: { 'x-relayer-key': relayerKey },
      signal: controller.signal,
    });
    controller.abort();
    return res.status;
  };
  // The server sees the close a moment later.
  let status = await room();
  for (let i = 0; status === 429 && i < 50; i++) status = await room();
  expect(status).toBe(200);
  held[1].close();

  const bad = await call(api, 'GET', '/relayer/intents/stream', {
    headers: { 'x-relayer-key': relayerKey, 'last-event-id': 'bm90LWEtY3Vyc29y' },
  });
  expect([bad.status, bad.json.message]).toEqual([400, 'Last-Event-ID is not an event id of this feed']);
});
