import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { envExample, settings } from '../../src/dev/env-example';

/**
 * The README is a short way in and docs/ holds the rest: every page is reachable from the README, every relative
 * link lands on a file and heading that exist, CONTRIBUTING.md's worked examples are what the code does, and
 * .env.example is what its generator writes. Comments and docs carry no tracker numbers or commit hashes.
 */
const root = path.join(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const docs = fs
  .readdirSync(path.join(root, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);
const pages = ['README.md', 'CONTRIBUTING.md', ...docs];

/** The text outside fenced code blocks and code spans, where links and headings are. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, 'code');

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2, ... */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** A page's relative links (not `https:` and the like). */
const links = (file: string) =>
  [...prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));

describe('docs a newcomer can walk', () => {
  test('docs a newcomer can walk: the README is at most 400 lines, with a table of contents', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(400);
    const start = readme.indexOf('## Contents');
    const contents = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]).filter((h) => h !== 'Contents');
    expect(sections.length).toBeGreaterThan(4);
    expect(sections.filter((h) => !contents.includes(`[${h}](#`))).toEqual([]);
    // The commands CI runs and a newcomer types first.
    expect(readme).toMatch(/^npm start\b/m);
    expect(readme).toMatch(/^npm test\b/m);
  });

  test('docs a newcomer can walk: every page of docs/ is linked from the README', () => {
    const linked = new Set(links('README.md').map((l) => l.replace(/#.*$/, '')));
    expect(docs.length).toBeGreaterThan(10);
    expect(docs.filter((page) => !linked.has(page))).toEqual([]);
  });

  test('docs a newcomer can walk: every relative link lands on a file, and on a heading of it', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of links(page)) {
        const [target, anchor] = link.split('#');
        const file = target ? path.posix.normalize(path.posix.join(path.posix.dirname(page), target)) : page;
        const lands = fs.existsSync(path.join(root, file));
        const onHeading = anchor === undefined || (lands && file.endsWith('.md') && anchors(read(file)).has(anchor));
        if (!lands || !onHeading) broken.push(`${page}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("docs a newcomer can walk: CONTRIBUTING.md's worked examples are what the code does", () => {
    const contributing = read('CONTRIBUTING.md');
    const section = (heading: string) => {
      const start = contributing.indexOf(`## ${heading}\n`);
      expect(start).toBeGreaterThan(0);
      const end = contributing.indexOf('\n## ', start + 1);
      return contributing.slice(start, end < 0 ? undefined : end);
    };
    const files = (text: string, pattern: RegExp) =>
      [...text.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]).filter((f) => pattern.test(f));

    // A route: its routes module is mounted by src/api/app.ts.
    const routeModules = files(section('Add a route'), /routes\.ts$/).filter((f) => f !== 'src/http/route.ts');
    expect(routeModules.length).toBeGreaterThan(0);
    const app = read('src/api/app.ts');
    const imported = (f: string) => app.includes(`'${path.posix.relative('src/api', f).replace(/\.ts$/, '')}'`);
    expect(routeModules.filter((f) => !imported(f))).toEqual([]);

    // A workflow: its contract's type is registered by workflows/index.ts and has a recorded history.
    const workflow = section('Add a workflow');
    const contracts = files(workflow, /^workflows\/contracts\//).filter((f) => /WorkflowType = /.test(read(f)));
    expect(contracts.length).toBeGreaterThan(0);
    const index = read('workflows/index.ts');
    const histories = fs.readdirSync(path.join(root, 'test/replay/histories'));
    for (const contract of contracts) {
      const type = read(contract).match(/WorkflowType = '(\w+)'/)![1];
      expect(index).toMatch(new RegExp(`export \\{[^}]*\\b${type}\\b[^}]*\\}`));
      expect(histories.filter((h) => h.startsWith(`${type}-`)).length).toBeGreaterThan(0);
    }

    // A migration: the file is registered in the data source's list.
    const migrations = files(section('Add a migration'), /^src\/db\/migrations\//);
    expect(migrations.length).toBeGreaterThan(0);
    const dataSource = read('src/db/data-source.ts');
    for (const migration of migrations) {
      const name = read(migration).match(/export class (\w+)/)![1];
      expect(dataSource).toContain(`import { ${name} } from './migrations/${path.basename(migration, '.ts')}'`);
      expect(dataSource).toMatch(new RegExp(`^\\s+${name},$`, 'm'));
    }
  });

  test('docs a newcomer can walk: .env.example is what `npm run env:example` writes from the config table', () => {
    const committed = read('.env.example');
    expect(committed).toBe(envExample());
    // Every setting of the table is in it, commented out so that a copy changes nothing.
    const table = settings(read('docs/configuration.md')).flatMap((s) => s.names);
    expect(table.length).toBeGreaterThan(40);
    expect(table.filter((name) => !committed.includes(`\n# ${name}=`))).toEqual([]);
    expect(committed.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual([]);
  });

  test('docs a newcomer can walk: no tracker numbers or commit hashes in comments and docs', () => {
    const patterns = [
      /\bissues?\s*#?\d+/i, // the word, then a number
      /\(#\d+\)/, // a pull request's number in parentheses
      /\bitems?\s+\d+(\s*(,|and)\s*\d+)*\s+of\b/i, // numbered items of something
      /\bacceptance\s+\d+/i, // a numbered acceptance criterion
      /(?<![\w.-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w-])/, // a commit id in prose
    ];
    const texts: { file: string; text: string }[] = [];
    // Recorded workflow histories are data, not prose.
    const walk = (dir: string): string[] =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
        if (!e.isDirectory()) return [`${dir}/${e.name}`];
        return e.name === 'node_modules' || e.name === 'histories' ? [] : walk(`${dir}/${e.name}`);
      });
    const code = ['src', 'workflows', 'activities', 'bench', 'test', 'temporal'].flatMap(walk);
    const config = ['.ci/run', 'Dockerfile', 'docker-compose.yml', '.dependency-cruiser.cjs', 'eslint.config.mjs'];
    const hashComments = (file: string) =>
      read(file)
        .split('\n')
        .filter((l) => /^\s*#/.test(l))
        .join('\n');
    for (const file of [...code, ...config, 'jest.config.js']) {
      if (/\.(ts|js|cjs|mjs)$/.test(file)) texts.push({ file, text: comments(file) });
      else if (/(\.sh|\.ya?ml|\/run|Dockerfile)$/.test(file)) texts.push({ file, text: hashComments(file) });
      else if (file.endsWith('.md')) texts.push({ file, text: read(file) });
    }
    for (const page of pages) texts.push({ file: page, text: read(page) });
    expect(texts.length).toBeGreaterThan(200);

    const found = texts.flatMap(({ file, text }) =>
      text
        .split('\n')
        .filter((line) => patterns.some((p) => p.test(line)))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });

  test('docs a newcomer can walk: every file of the repository named in comments and docs exists', () => {
    const walk = (dir: string): string[] =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
        if (!e.isDirectory()) return [`${dir}/${e.name}`];
        return e.name === 'node_modules' || e.name === 'histories' ? [] : walk(`${dir}/${e.name}`);
      });
    const code = ['src', 'workflows', 'activities', 'bench', 'test'].flatMap(walk).filter((f) => /\.(ts|js)$/.test(f));
    const texts = [...code.map(comments), ...pages.map(read)];
    const named = new Set(
      texts.flatMap((text) => [
        ...text.matchAll(/\b(?:src|workflows|activities|test|bench)\/[A-Za-z0-9_./-]+\.(?:ts|json|sol|md)\b/g),
      ]),
    );
    expect(named.size).toBeGreaterThan(100);
    // A placeholder such as test/unit/x.test.ts names no file on purpose.
    const missing = [...named].map(([p]) => p).filter((p) => !/\/x\./.test(p) && !fs.existsSync(path.join(root, p)));
    expect(missing).toEqual([]);
  });
});

/** A source file's comments (test titles and other strings are not comments), one per line. */
function comments(file: string): string {
  const text = read(file);
  const kind = file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Set<number>();
  const out: string[] = [];
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push(text.slice(r.pos, r.end));
    }
  };
  // Every token, punctuation and the end of the file included, so that no comment's position is missed.
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return out.join('\n');
}
