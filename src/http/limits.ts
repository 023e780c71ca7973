/** The request limits every route shares (docs/api.md, Limits). */
export const LIMITS = {
  /** validation details in one answer; the message counts the rest */
  details: 20,
  /** nesting levels of a body (objects and arrays), free-form fields included */
  depth: 32,
  /** `maxItems` of an array whose schema names none */
  maxItems: 256,
  /** a failing body of more values than this is answered with its first problem only (bounds the work and memory) */
  fullReportValues: 10_000,
  /** request line and headers together (Node's `maxHeaderSize`); larger is 431 */
  headerBytes: 16_384,
  /** the API process's resident memory the fuzz and flood tests hold it to */
  apiRssBytes: 512 * 1024 * 1024,
  /** the per-route answer deadline the fuzz suite holds every route to */
  deadlineMs: 5_000,
} as const;

/** A value the request may not carry, and where (path segments below its location). */
export interface InputProblem {
  path: string[];
  message: string;
  keyword: string;
}

/** Where a value sits: its key and its parent's place (paths are only spelled out for the one value refused). */
interface Place {
  key: string | number;
  parent?: Place;
  depth: number;
}
const pathOf = (place: Place | undefined): string[] => {
  const path: string[] = [];
  for (let p = place; p; p = p.parent) path.unshift(String(p.key));
  return path;
};

/** U+0000 or a UTF-16 surrogate without its pair: PostgreSQL `text`/`jsonb` cannot store either. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (s: string) => UNSTORABLE.test(s);

/**
 * Walks a parsed request value without recursion (so depth costs no stack), stopping at the first value no route
 * accepts: nesting deeper than LIMITS.depth, a string or key PostgreSQL cannot store, a number written with an
 * exponent (`exponents`, from exponentNumbers), or one JSON.parse did not keep exactly (non-finite from 1e400,
 * negative zero, an integer beyond 2^53).
 */
export function findInputProblem(root: unknown, exponents?: Set<number>): InputProblem | undefined {
  const stack: { value: unknown; place?: Place }[] = [{ value: root }];
  while (stack.length) {
    const { value, place } = stack.pop()!;
    const depth = place?.depth ?? 0;
    if (typeof value === 'string') {
      if (unstorable(value))
        return {
          path: pathOf(place),
          keyword: 'string',
          message: 'must not contain U+0000 or an unpaired UTF-16 surrogate',
        };
    } else if (typeof value === 'number') {
      if (exponents?.has(value))
        return {
          path: pathOf(place),
          keyword: 'number',
          message: 'is written with an exponent: send plain decimals (amounts and block numbers as decimal strings)',
        };
      if (
        !Number.isFinite(value) ||
        Object.is(value, -0) ||
        (Number.isInteger(value) && !Number.isSafeInteger(value))
      ) {
        return {
          path: pathOf(place),
          keyword: 'number',
          message: 'must be an exact number (finite, not -0, integers within ±2^53; larger amounts as decimal strings)',
        };
      }
    } else if (Array.isArray(value)) {
      if (depth >= LIMITS.depth)
        return { path: pathOf(place), keyword: 'maxDepth', message: `is nested deeper than ${LIMITS.depth} levels` };
      for (let i = 0; i < value.length; i++)
        stack.push({ value: value[i], place: { key: i, parent: place, depth: depth + 1 } });
    } else if (value !== null && typeof value === 'object') {
      if (depth >= LIMITS.depth)
        return { path: pathOf(place), keyword: 'maxDepth', message: `is nested deeper than ${LIMITS.depth} levels` };
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        if (unstorable(key))
          return {
            path: pathOf(place),
            keyword: 'propertyName',
            message: 'has a property name with U+0000 or an unpaired UTF-16 surrogate',
          };
        stack.push({ value: (value as Record<string, unknown>)[key], place: { key, parent: place, depth: depth + 1 } });
      }
    }
  }
  return undefined;
}

/** Whether a value holds more than `limit` values in all (stops counting there). */
export function holdsMoreThan(root: unknown, limit: number): boolean {
  const stack: unknown[] = [root];
  let count = 0;
  while (stack.length) {
    if (++count > limit) return true;
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    for (const key in value) {
      if (count + stack.length >= limit) return true;
      stack.push((value as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/**
 * The numbers written with an exponent (`1e3`, `1e400`) in JSON text, outside strings, as JSON.parse read them:
 * amounts and block numbers are plain decimals, and such a literal silently becomes Infinity or a rounded value.
 */
export function exponentNumbers(json: string): Set<number> {
  const found = new Set<number>();
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(json, i);
    } else if (c === MINUS || isDigit(c)) {
      let end = i + 1;
      while (end < json.length && NUMBER_CHARS.has(json.charCodeAt(end))) end++;
      const literal = json.slice(i, end);
      if (/[eE]/.test(literal)) found.add(Number(literal));
      i = end - 1;
    }
  }
  return found;
}
const QUOTE = 0x22;
const MINUS = 0x2d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const NUMBER_CHARS = new Set([...'-+0123456789.eE'].map((c) => c.charCodeAt(0)));

/**
 * Where the string opened at `open` ends: the next quote that an even run of backslashes (none included) precedes.
 * Found with indexOf: strings are most of a body, and a loop over their characters cost more than parsing it.
 */
function closingQuote(json: string, open: number): number {
  for (let quote = json.indexOf('"', open + 1); quote >= 0; quote = json.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (json[quote - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return json.length;
}

type SchemaNode = Record<string, unknown>;
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMAS = [
  'items',
  'additionalProperties',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
];

/**
 * A request schema with `maxItems` on every array (LIMITS.maxItems where the route names none), so an array flood is
 * refused by its length before any item is looked at. Returns a copy: schemas are shared between routes.
 */
export function withArrayLimits<S>(schema: S): S {
  if (Array.isArray(schema)) return schema.map(withArrayLimits) as S;
  if (!schema || typeof schema !== 'object') return schema;
  const node = { ...(schema as SchemaNode) };
  for (const key of SUBSCHEMAS) if (node[key] && typeof node[key] === 'object') node[key] = withArrayLimits(node[key]);
  for (const key of SUBSCHEMA_LISTS)
    if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map(withArrayLimits);
  for (const key of SUBSCHEMA_MAPS) {
    if (node[key] && typeof node[key] === 'object')
      node[key] = Object.fromEntries(Object.entries(node[key] as SchemaNode).map(([k, v]) => [k, withArrayLimits(v)]));
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (
    (types.includes('array') || node.items !== undefined || node.prefixItems !== undefined) &&
    node.maxItems === undefined
  )
    node.maxItems = LIMITS.maxItems;
  return node as S;
}
