import { hosts } from '../../src/api/app';
import { openApiDocument } from '../../src/http/openapi';
import { exponentNumbers, findInputProblem, LIMITS, withArrayLimits } from '../../src/http/limits';
import { SUPPORTED_VERSIONS } from '../../src/http/versions';

/** Every array schema under a node, with where it is. */
function arrays(node: unknown, at: string, out: { at: string; schema: Record<string, unknown> }[] = []) {
  if (Array.isArray(node)) node.forEach((n, i) => arrays(n, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    const s = node as Record<string, unknown>;
    if (s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'))) out.push({ at, schema: s });
    for (const [k, v] of Object.entries(s)) arrays(v, `${at}/${k}`, out);
  }
  return out;
}

test.each(SUPPORTED_VERSIONS)('22.1 every array of every request schema in the %s document has maxItems', (version) => {
  const doc = openApiDocument(hosts(), 'test', version);
  const requests = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const o = op as { parameters: unknown; requestBody?: unknown };
      return { where: `${method} ${path}`, schema: [o.parameters, o.requestBody] };
    }),
  );
  const unbounded = requests
    .flatMap((r) => arrays(r.schema, r.where))
    .filter((a) => typeof a.schema.maxItems !== 'number')
    .map((a) => a.at);
  expect(unbounded).toEqual([]);
});

test('22.1 a route limit is kept; an array without one gets the default; shared schemas are not changed', () => {
  const shared = { type: 'array', items: { type: 'string' } };
  const out = withArrayLimits<unknown>({
    type: 'object',
    properties: { a: shared, b: { ...shared, maxItems: 3 } },
  }) as { properties: Record<string, { maxItems: number }> };
  expect([out.properties.a.maxItems, out.properties.b.maxItems]).toEqual([LIMITS.maxItems, 3]);
  expect(shared).toEqual({ type: 'array', items: { type: 'string' } });
});

test.each([
  [{ a: 'x\u0000' }, ['a'], 'string'],
  [{ a: ['ok', '\ud800'] }, ['a', '1'], 'string'],
  [{ ['k\udc00']: 1 }, [], 'propertyName'],
  [{ n: -0 }, ['n'], 'number'],
  [{ n: Infinity }, ['n'], 'number'],
  [{ n: 2 ** 60 }, ['n'], 'number'],
  [JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`), Array(LIMITS.depth).fill('a'), 'maxDepth'],
])('22.2/22.3 findInputProblem %#', (value, path, keyword) => {
  expect(findInputProblem(value)).toEqual(expect.objectContaining({ path, keyword }));
});

test('22.3 values every route accepts', () => {
  expect(
    findInputProblem({
      a: ['x', 1.5, 0, -3, Number.MAX_SAFE_INTEGER, null, true, '\ud83d\ude00'],
      b: JSON.parse(`${'['.repeat(LIMITS.depth - 1)}${']'.repeat(LIMITS.depth - 1)}`),
    }),
  ).toBeUndefined(); // the body is level 1
});

test.each([
  ['{"a":1e3}', [1000]],
  ['[1E+400]', [Infinity]],
  ['{"a":-2e-7,"b":1}', [-2e-7]],
  ['{"a":"1e3"}', []],
  ['{"e":true,"f":false}', []],
  ['{"a":"x\\"1e3"}', []],
  ['{"a":"x\\\\","b":1e3}', [1000]], // an escaped backslash ends the string before the quote
  ['{"a":"\\\\\\"1e3"}', []],
  ['{"a":12,"b":[1.5]}', []],
])('22.3 exponent literals in %s: %j', (text, found) => {
  expect([...exponentNumbers(text)]).toEqual(found);
});

test('22.3 a number written with an exponent is named by its field', () => {
  expect(findInputProblem({ a: 1, b: { c: 1000 } }, exponentNumbers('{"a":1,"b":{"c":1e3}}'))).toEqual(
    expect.objectContaining({ path: ['b', 'c'], keyword: 'number' }),
  );
});
