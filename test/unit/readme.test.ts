import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadConfig } from '../../src/config';
import { hosts } from '../../src/api/app';
import { versionRoutes } from '../../src/versions/routes';
import { ERROR_CODES } from '../../src/http/envelope';
import { eventSchemas } from '../../src/ingestion/schemas';
import { WEBHOOK_TYPES } from '../../src/webhooks/types';
import type { Services } from '../../src/http/services';

/**
 * What the README and the pages of docs/ state mechanically is checked against the code. Everything here is derived
 * from their text and from scanning the sources, so files and settings that move keep the test meaningful.
 */
const root = path.join(__dirname, '../..');
const readPage = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
/** The README, CONTRIBUTING.md and every page of docs/: what a reader is told. */
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const docs = pages.map(readPage).join('\n');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<
  string,
  Record<string, string>
>;
/** Folders never scanned: dependencies, git, and what `npm start`, builds and tests write (git-ignored). */
const UNSCANNED = new Set(['node_modules', '.git', '.data', '.tools', 'dist', 'coverage']);

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (UNSCANNED.has(e.name)) return [];
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : [full];
  });
}

/** The text of a page from a heading to the next heading of the same or a higher level (`#` lines in code blocks are not). */
function section(page: string, heading: string): string {
  const lines = readPage(page).split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${page} has no heading "${heading}"`);
  const level = heading.match(/^#+/)![0].length;
  let fenced = false;
  let end = start + 1;
  for (; end < lines.length; end++) {
    if (lines[end].startsWith('```')) fenced = !fenced;
    else if (!fenced && new RegExp(`^#{1,${level}} `).test(lines[end])) break;
  }
  return lines.slice(start + 1, end).join('\n');
}

/** A markdown table's data rows as cells (escaped pipes kept inside their cell). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
}

const backticked = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);

/** Markdown formatting the served data does not carry: code spans, escaped pipes, line wrapping. */
const plain = (text: string) => text.replace(/`/g, '').replace(/\\\|/g, '|').replace(/\s+/g, ' ').trim();

describe('24.4 README true to the code', () => {
  test('24.4 every file path the README, CONTRIBUTING.md and docs/ name exists', () => {
    const tracked = walk(root);
    const topLevel = new Set(fs.readdirSync(root));
    const basenames = new Set(tracked.map((f) => path.basename(f)));
    const ignored = fs
      .readFileSync(path.join(root, '.gitignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim().replace(/^\//, ''))
      .filter((l) => l.endsWith('/'));
    const fileLike = /\.(ts|js|mjs|json|sh|ya?ml|md|txt|sol)$/;
    const packages = new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }));
    const missing: string[] = [];
    let checked = 0;
    const texts = pages.map(readPage);
    // Paragraphs (and list items, table rows) give bare file names their folder: "`src/http/` ... `app.ts`".
    for (const block of texts.flatMap((text) => text.split(/\n(?=\s*\n|- |\| )/))) {
      const folders: string[] = [];
      for (const token of backticked(block)) {
        if (/[\s<>:@…*{}?=,]|^\/|^https?/.test(token) || (token.startsWith('.') && !token.startsWith('.ci/'))) continue;
        const segments = token.replace(/\/$/, '').split('/');
        const repoPath = token.includes('/') && (topLevel.has(segments[0]) || fileLike.test(token));
        if (repoPath) {
          if (ignored.some((dir) => `${token.replace(/\/?$/, '/')}`.startsWith(dir))) continue;
          checked++;
          if (!fs.existsSync(path.join(root, token))) missing.push(token);
          folders.push(token.endsWith('/') ? token : `${path.dirname(token)}/`);
        } else if (!token.includes('/') && fileLike.test(token) && /^[\w.-]+$/.test(token) && !packages.has(token)) {
          checked++;
          const found = folders.length
            ? folders.some((f) => fs.existsSync(path.join(root, f, token))) || topLevel.has(token)
            : basenames.has(token);
          if (!found) missing.push(folders.length ? `${folders.at(-1)}${token}` : token);
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  test('24.4 every folder under src/ and every workflow type is named in Architecture (docs/architecture.md)', () => {
    const architecture = readPage('docs/architecture.md');
    const folders = fs
      .readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}/`);
    expect(folders.filter((f) => !architecture.includes(`\`${f}`))).toEqual([]);
    // ... and every workflow type the worker registers (the names `workflows/index.ts` exports).
    const index = fs.readFileSync(path.join(root, 'workflows/index.ts'), 'utf8');
    const types = [...index.matchAll(/export \{([^}]+)\}/g)]
      .flatMap((m) =>
        m[1].split(',').map((n) =>
          n
            .trim()
            .split(/\s+as\s+/)
            .at(-1)!,
        ),
      )
      .filter(Boolean);
    expect(types.length).toBeGreaterThan(5);
    expect(types.filter((t) => !architecture.includes(`\`${t}\``))).toEqual([]);
  });

  test('24.4 every integration, cluster and replay suite is described in Testing (docs/testing.md)', () => {
    const tests = readPage('docs/testing.md');
    const suites = ['test/integration', 'test/cluster', 'test/replay'].flatMap((dir) =>
      fs
        .readdirSync(path.join(root, dir))
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => `${dir}/${f}`),
    );
    expect(suites.filter((suite) => !tests.includes(`\`${suite}\``))).toEqual([]);
  });

  test('24.4 the Configuration table lists exactly the environment variables src/ reads', () => {
    const table = tableRows(readPage('docs/configuration.md')).slice(1);
    const documented = table.flatMap(([names]) => backticked(names));
    expect(documented.length).toBeGreaterThan(40);

    const sources = walk(path.join(root, 'src')).map((f) => fs.readFileSync(f, 'utf8'));
    const scripts = walk(path.join(root, 'temporal'))
      .filter((f) => f.endsWith('.sh'))
      .map((f) => fs.readFileSync(f, 'utf8'));
    const name = '([A-Z][A-Z0-9_]*)';
    const reads = [
      new RegExp(`\\benv\\.${name}`, 'g'), // env.X and process.env.X
      new RegExp(`\\benv\\[\\s*['"\`]${name}['"\`]\\s*\\]`, 'g'), // env['X']
      new RegExp(`\\benv\\s*,\\s*['"]${name}['"]`, 'g'), // int(env, 'X', ...)
      new RegExp(`\\benv\\[\\s*\`${name}\\$\\{`, 'g'), // env[`RPC_URL_${chainId}`]
    ];
    const read = new Set<string>();
    for (const text of sources) {
      for (const pattern of reads) {
        for (const m of text.matchAll(pattern)) read.add(pattern.source.endsWith('\\$\\{') ? `${m[1]}<` : m[1]);
      }
    }
    const documentedKeys = new Set(documented.map((d) => d.replace(/<.*$/, '<')));
    expect([...read].filter((v) => !documentedKeys.has(v)).sort()).toEqual([]);

    // The other way, a name counts wherever src/ spells it out as a string (config helpers may read it indirectly)
    // or a dev script reads it (the Temporal CLI scripts).
    const mentioned = (variable: string) => {
      const key = variable.replace(/<.*$/, '');
      if (key !== variable) return sources.some((t) => t.includes(`${key}\${`));
      const literal = new RegExp(`['"\`]${variable}['"\`]|\\benv\\.${variable}\\b`);
      const shell = new RegExp(`\\$\\{?${variable}\\b`);
      return sources.some((t) => literal.test(t)) || scripts.some((t) => shell.test(t));
    };
    expect(documented.filter((v) => !mentioned(v))).toEqual([]);
  });

  test("24.4 the Configuration table's defaults are the code's: setting a variable to its documented default changes nothing", () => {
    const unset = loadConfig({});
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const [names, defaults] of tableRows(readPage('docs/configuration.md')).slice(1)) {
      const vars = backticked(names);
      // `A` / `B` | `1` / `2` pair up; one default for several names applies to each ("`true` outside production").
      const parts = defaults.split(' / ').map((part) => backticked(part)[0]);
      vars.forEach((name, i) => {
        const value = parts.length === vars.length ? parts[i] : parts.length === 1 ? parts[0] : undefined;
        if (value === undefined || name.includes('<')) return; // generated, derived, or none
        checked.push(name);
        if (!isDeepStrictEqual(loadConfig({ [name]: value }), unset)) wrong.push(`${name}=${value}`);
      });
    }
    expect(checked.length).toBeGreaterThan(40);
    expect(wrong).toEqual([]);
  });

  test('24.4 every route the docs name (`METHOD /path`) is served by some host', () => {
    const normal = (p: string) => p.replace(/\?.*$/, '').replace(/\{[^}]*\}|<[^>]*>|:\w+(?=[/.]|$)/g, '{}');
    const served = new Set(
      hosts().flatMap((host) => host.routes.map((r) => `${r.method.toUpperCase()} ${host.prefix}${normal(r.path)}`)),
    );
    // Routes registered on the router directly rather than as data (metrics, OpenAPI documents).
    for (const file of walk(path.join(root, 'src'))) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/router\.(get|post|delete)\('([^']+)'/g))
        served.add(`${m[1].toUpperCase()} ${normal(m[2])}`);
    }
    const named = [
      ...new Set([...docs.matchAll(/`(GET|POST|DELETE) (\/[^`\s]*)/g)].map((m) => `${m[1]} ${normal(m[2])}`)),
    ];
    expect(named.length).toBeGreaterThan(40);
    // A path under a host's section is written without the host's prefix.
    const prefixes = hosts().map((h) => h.prefix);
    const unknown = named.filter((route) => {
      const [method, p] = route.split(' ');
      return !prefixes.some((prefix) => served.has(`${method} ${prefix}${p}`));
    });
    expect(unknown).toEqual([]);
  });

  test('24.4 every route without an API key is named in Authentication', () => {
    const authentication = section('docs/api.md', '## Authentication');
    const open = hosts().flatMap((host) => host.routes.filter((r) => r.auth !== 'apiKey').map((r) => r.path));
    expect(open.length).toBeGreaterThan(5);
    expect(open.filter((p) => !authentication.includes(`\`${p}\``))).toEqual([]);
  });

  test("24.4 blanc's error-code table is the code's, and the metrics Ops names exist", () => {
    const table = section('docs/api.md', '### Error codes (blanc)');
    const rows = tableRows(table)
      .slice(1)
      .map(([code, status]) => [plain(code), Number(status)]);
    expect(rows.sort()).toEqual(Object.entries(ERROR_CODES).sort());

    const metrics = walk(path.join(root, 'src')).flatMap((f) =>
      [...fs.readFileSync(f, 'utf8').matchAll(/name: '([a-z_]+)'/g)].map((m) => m[1]),
    );
    const named = backticked(section('docs/api.md', '## Ops'))
      .map((t) => t.replace(/\{.*$/, ''))
      .filter((t) => /^[a-z]+(_[a-z]+)+$/.test(t));
    expect(named.length).toBeGreaterThan(3);
    // The section also names the outbox tables the dead-letter gauge is labelled with.
    const schema = walk(path.join(root, 'src/db'))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(
      named.filter((m) => !metrics.includes(m) && !new RegExp(`TABLE (IF NOT EXISTS )?"?${m}\\b`).test(schema)),
    ).toEqual([]);
  });

  test('24.4 the indexer event tables list every event type the route accepts, with its fields', () => {
    const tables = [readPage('docs/indexer.md'), section('docs/deposit-processor.md', '## Indexer events')].flatMap(
      (text) => tableRows(text).slice(1),
    );
    const documented = new Map(
      tables.map(([type, fields]) => [plain(type), backticked(fields).map((f) => f.replace(/[\s{?].*$/, ''))]),
    );
    expect([...documented.keys()].sort()).toEqual(Object.keys(eventSchemas).sort());
    const missing = Object.entries(eventSchemas).flatMap(([type, schema]) =>
      Object.keys((schema as { properties: object }).properties)
        .filter((field) => field !== 'id' && field !== 'type' && !documented.get(type)?.includes(field))
        .map((field) => `${type}.${field}`),
    );
    expect(missing).toEqual([]);
  });

  test('24.4 every `npm run cli -- …` command in the docs exists in the CLI, and every CLI command is documented', () => {
    const cli = fs.readFileSync(path.join(root, 'src/main/cli.ts'), 'utf8');
    const dispatched = new Set(
      [...cli.matchAll(/group === '([\w-]+)' &&\s+command === '([\w-]+)'/g)].map((m) => `${m[1]} ${m[2]}`),
    );
    /** Arguments after the command: `<a b>` is one, `[--types a,b]` is optional. */
    const arity = (args: string) => {
      const tokens = args
        .replace(/<[^>]*>/g, 'x')
        .replace(/\[[^\]]*\]/g, (opt) => ` ${'?'.repeat(opt.trim().split(/\s+/).length)} `)
        .trim()
        .split(/\s+/)
        .filter(Boolean);
      return {
        required: tokens.filter((t) => !t.startsWith('?')).length,
        optional: tokens.filter((t) => t.startsWith('?')).reduce((n, t) => n + t.length, 0),
      };
    };
    const usage = new Map(
      [...cli.matchAll(/npm run cli -- ([\w-]+) ([\w-]+)([^'(]*)/g)].map((m) => [`${m[1]} ${m[2]}`, arity(m[3])]),
    );
    expect([...usage.keys()].sort()).toEqual([...dispatched].sort());

    const named = [...docs.matchAll(/npm run cli -- ([\w-]+) ([\w-]+)([^`#\n]*)/g)];
    expect(named.length).toBeGreaterThan(5);
    const wrong = named
      .filter(([, group, command, args]) => {
        const spec = usage.get(`${group} ${command}`);
        if (!spec) return true;
        const given = arity(args).required;
        return given < spec.required || given > spec.required + spec.optional;
      })
      .map((m) => m[0].trim());
    expect(wrong).toEqual([]);
    const documented = new Set(named.map(([, group, command]) => `${group} ${command}`));
    expect([...dispatched].filter((c) => !documented.has(c))).toEqual([]);
  });

  test("24.4 the docs' migration table is the one GET /versions serves, row by row", async () => {
    const route = versionRoutes.find((r) => r.method === 'get' && r.path === '/versions')!;
    const services = {
      config: { versions: { alpsDeprecatedAt: new Date('2026-04-01T00:00:00Z'), alpsMigrationUrl: '/versions' } },
    } as unknown as Services;
    const served = await route.handler({} as never, {} as never, services);
    const changes = (served.body as { migration: { changes: { alps: string; blanc: string }[] } }).migration.changes;

    const table = section('docs/api.md', '### Migration from alps to blanc');
    const rows = tableRows(table)
      .slice(1)
      .map(([alps, blanc]) => ({ alps: plain(alps), blanc: plain(blanc) }));
    expect(rows).toEqual(changes.map((c) => ({ alps: plain(c.alps), blanc: plain(c.blanc) })));
  });

  test('24.4 the docs count and list the webhook types the code has', () => {
    const words = [
      'zero',
      'one',
      'two',
      'three',
      'four',
      'five',
      'six',
      'seven',
      'eight',
      'nine',
      'ten',
      'eleven',
      'twelve',
    ];
    const counts = [...docs.matchAll(/\b(\w+) (?:webhook )?types\b/g)]
      .map((m) => m[1])
      .filter((w) => words.includes(w) || /^\d+$/.test(w));
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.map((w) => (words.includes(w) ? words.indexOf(w) : Number(w)))).toEqual(
      counts.map(() => WEBHOOK_TYPES.length),
    );

    const listed = tableRows(section('docs/webhooks.md', '## Payloads'))
      .slice(1)
      .map(([type]) => plain(type));
    expect(listed).toEqual([...WEBHOOK_TYPES]);
  });
});
