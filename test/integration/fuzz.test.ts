import fs from 'node:fs';
import zlib from 'node:zlib';
import type { ChildProcess } from 'node:child_process';
import fc from 'fast-check';
import { stopProcess } from '../../src/dev/processes';
import { LIMITS } from '../../src/http/limits';
import { patterns } from '../../src/http/schema';
import { Api, spawnApi, startApi } from '../support/harness';

/**
 * Every route of every host (read from the served OpenAPI documents, so a new route is fuzzed without touching this
 * file), fed the hostile values of the request limits (docs/api.md, Limits) at the body, a body property, a path
 * parameter or a query parameter. No answer may be a 5xx or slower than the per-route deadline, and the API process
 * stays under its memory bound.
 */
type Json = Record<string, unknown>;
type Schema = Json;

let api: Api;
let child: ChildProcess;
let base: string;

beforeAll(async () => {
  api = await startApi();
  ({ child, url: base } = await spawnApi({ ...api.env.env, LOG_LEVEL: 'silent' }, '/health'));
}, 90_000);
afterAll(async () => {
  await stopProcess(child, 'SIGKILL');
  await api.close();
});

const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Hostile JSON texts (raw: some, like 1e400, -0 and lone surrogates, JSON.stringify cannot write). */
const HOSTILE = [
  '"a\\u0000b"',
  '"\\ud800"',
  '"x\\udc00y"',
  '1e400',
  '-1e400',
  '-0',
  '12345678901234567890',
  '1e3',
  `"${(1n << 256n).toString()}"`,
  '"1e18"',
  '"-1"',
  `"${'9'.repeat(78)}"`,
  deep(1000),
  `[${'1,'.repeat(20_000)}1]`,
  `"${'a'.repeat(100_000)}"`,
  '{"\\u0000":1}',
  'null',
  'true',
  '[]',
  '{}',
  '""',
];
/** Hostile path and query values, already percent-encoded. */
const HOSTILE_PARAMS = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '1e400',
  '-0',
  '12345678901234567890',
  `${(1n << 256n).toString()}`,
  'a'.repeat(5000),
  '%FF%FE',
  '..%2F..%2F',
  '0x',
];

/** A body that satisfies the schema where it easily can, so a hostile value placed in it reaches the deeper checks. */
function sample(schema: Schema | undefined, depth = 0): unknown {
  if (!schema || depth > 8) return {};
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const k of ['oneOf', 'anyOf', 'allOf'] as const)
    if (Array.isArray(schema[k])) return sample((schema[k] as Schema[])[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    return Object.fromEntries(((schema.required as string[]) ?? []).map((k) => [k, sample(props[k], depth + 1)]));
  }
  if (type === 'array')
    return Array.from({ length: Number(schema.minItems ?? 1) }, () => sample(schema.items as Schema, depth + 1));
  if (type === 'integer' || type === 'number') return Number(schema.minimum ?? 1);
  if (type === 'boolean') return false;
  if (type === 'string') {
    const known: Record<string, string> = {
      [patterns.address]: '0x1111111111111111111111111111111111111111',
      [patterns.uint256]: '1',
      [patterns.amount]: '1',
      [patterns.hex]: '0x',
      [patterns.bytes12]: `0x${'0'.repeat(24)}`,
      [patterns.caip2]: 'eip155:8453',
    };
    if (schema.format === 'date-time') return new Date().toISOString();
    return known[String(schema.pattern)] ?? 'x'.repeat(Number(schema.minLength ?? 1));
  }
  return {};
}

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  what: string;
}

/** One arbitrary per route of the document: each route gets its own share of cases. */
function casesOf(doc: Json, version: string): fc.Arbitrary<Case>[] {
  const routes: { method: string; path: string; op: Json }[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>))
    for (const [method, op] of Object.entries(ops)) routes.push({ method, path, op });
  return routes.map(({ method, path, op }) => {
    const params = (op.parameters ?? []) as { name: string; in: string }[];
    const bodySchema = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.[
      'application/json'
    ]?.schema;
    const headers = {
      'x-api-key': api.apiKey,
      'x-indexer-key': api.indexerKey,
      'x-api-version': version,
      'content-type': 'application/json',
    };
    const fill = (p: string, value: string) => p.replace(/\{(\w+)\}/g, () => value);
    const validBody = () => JSON.stringify(sample(bodySchema));
    const bodyProps = Object.keys((bodySchema?.properties ?? {}) as Json);
    const at = (prop: string | undefined, hostile: string) => {
      if (!prop) return hostile;
      const text = JSON.stringify({ ...(sample(bodySchema) as Json), [prop]: '\uE000' });
      return text.replace('"\uE000"', hostile);
    };
    const routeHeaders = { ...headers };
    const ok = fill(path, '1');
    return fc.oneof(
      fc
        .record({ hostile: fc.constantFrom(...HOSTILE), prop: fc.constantFrom(undefined, ...bodyProps) })
        .map(({ hostile, prop }) => ({
          method,
          path: ok,
          headers: routeHeaders,
          body: method === 'get' ? undefined : at(prop, hostile),
          what: `body${prop ? '.' + prop : ''} = ${hostile.slice(0, 40)}`,
        })),
      fc
        .record({
          hostile: fc.constantFrom(...HOSTILE_PARAMS),
          param: fc.constantFrom(...(params.length ? params : [{ name: 'q', in: 'query' }])),
        })
        .map(({ hostile, param }) => ({
          method,
          path:
            param.in === 'path'
              ? path.replace(`{${param.name}}`, hostile).replace(/\{(\w+)\}/g, '1')
              : `${ok}?${param.name}=${hostile}`,
          headers: routeHeaders,
          body: method === 'get' ? undefined : validBody(),
          what: `${param.in}.${param.name} = ${hostile.slice(0, 40)}`,
        })),
      fc
        .constantFrom(
          { ct: 'application/json', enc: 'gzip', body: 'not gzip', key: true },
          { ct: 'application/json', enc: 'gzip', body: zlib.gzipSync('{"a":'), key: true },
          { ct: 'text/plain', enc: undefined, body: 'x', key: true },
          { ct: 'application/x-www-form-urlencoded', enc: undefined, body: 'a=b', key: true },
          { ct: 'application/json', enc: undefined, body: '{"oops', key: false },
          { ct: 'application/json', enc: undefined, body: `{"a":"${'a'.repeat(1_100_000)}"}`, key: false },
        )
        .map((c) => ({
          method: method === 'get' ? 'post' : method,
          path: ok,
          headers: {
            ...(c.key ? routeHeaders : { 'x-api-version': version }),
            'content-type': c.ct,
            ...(c.enc ? { 'content-encoding': c.enc } : {}),
          },
          body: c.body,
          what: `${c.ct}${c.enc ? ' ' + c.enc : ''}${c.key ? '' : ' without keys'}: ${String(c.body).slice(0, 20)}`,
        })),
    );
  });
}

/** The operations each served document lists today (55 and 51): fewer means routes went missing from the fuzz. */
const MIN_ROUTES = { '2026-01.alps': 55, '2026-04.blanc': 51 };

test('22.A1 every route of every host under hostile input: no 5xx, none slower than the deadline, API memory bounded', async () => {
  const cases: Case[] = [];
  const routes: Record<string, number> = {};
  for (const version of ['2026-01.alps', '2026-04.blanc']) {
    const doc = (await (await fetch(`${base}/openapi/${version}.json`)).json()) as Json;
    const arbitraries = casesOf(doc, version);
    routes[version] = arbitraries.length;
    for (const route of arbitraries) cases.push(...fc.sample(route, { seed: 22, numRuns: 12 }));
  }
  // Every route of both documents is fuzzed, a dozen cases each: a document read as empty fuzzes nothing and fails.
  expect(routes['2026-01.alps']).toBeGreaterThanOrEqual(MIN_ROUTES['2026-01.alps']);
  expect(routes['2026-04.blanc']).toBeGreaterThanOrEqual(MIN_ROUTES['2026-04.blanc']);
  expect(cases).toHaveLength(12 * (routes['2026-01.alps'] + routes['2026-04.blanc']));
  const failures: string[] = [];
  let maxMs = 0;
  let slowest = '';
  const queue = [...cases];
  const worker = async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const started = performance.now();
      const res = await fetch(`${base}${c.path}`, {
        method: c.method.toUpperCase(),
        headers: c.headers,
        body: c.body,
      }).catch((e: Error) => ({ status: 0, text: async () => e.message }));
      const text = await res.text();
      const ms = performance.now() - started;
      if (ms > maxMs) [maxMs, slowest] = [ms, `${c.method} ${c.path.slice(0, 60)} ${c.what}`];
      if (res.status >= 500 || res.status === 0 || ms > LIMITS.deadlineMs)
        failures.push(
          `${res.status} ${Math.round(ms)}ms ${c.method} ${c.path.slice(0, 80)} ${c.what}: ${text.slice(0, 200)}`,
        );
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  const memory = rss();
  expect({
    failures: failures.slice(0, 20),
    failureCount: failures.length,
    rssBounded: memory < LIMITS.apiRssBytes,
  }).toEqual({ failures: [], failureCount: 0, rssBounded: true });
  // Recorded for the reader, not asserted beyond the deadline: timings depend on the machine.
  console.log(
    `fuzz: ${cases.length} requests, max ${Math.round(maxMs)} ms (${slowest}), API RSS ${Math.round(memory / 2 ** 20)} MB`,
  );
}, 120_000);
