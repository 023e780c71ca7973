import fs from 'node:fs';
import path from 'node:path';
import { TABLE_OWNERS } from '../../src/db/table-owners';

/** Every table has one owner (src/db/table-owners.ts), and only the owner's modules write it. */

const SRC = path.join(__dirname, '../../src');
const MIGRATIONS = path.join(SRC, 'db/migrations');

const sourceFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return full === MIGRATIONS ? [] : sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });

/** The target of each INSERT, UPDATE or DELETE in a text: a table name, or `${…}` when the name is interpolated. */
function writeTargets(text: string): string[] {
  const target = String.raw`([a-z_][a-z0-9_]*|\$\{[^}]+\})`;
  const patterns = [
    new RegExp(String.raw`\bINSERT\s+INTO\s+${target}`, 'g'),
    new RegExp(String.raw`\bDELETE\s+FROM\s+${target}`, 'g'),
    // `UPDATE t [alias] SET`, not an upsert's `DO UPDATE SET` nor a lock's `FOR UPDATE`
    new RegExp(String.raw`(?<!\bDO\s+)\bUPDATE\s+${target}(?:\s+[a-z_]+)?\s+SET\b`, 'g'),
    new RegExp(String.raw`\bTRUNCATE\s+(?:TABLE\s+)?${target}`, 'g'),
    new RegExp(String.raw`\bCOPY\s+${target}`, 'g'),
  ];
  return patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]));
}

const featureOf = (file: string) => path.relative(SRC, file).split(path.sep)[0].replace(/\.ts$/, '');

test('every table a migration creates has an owner, and every owner names a created table', () => {
  const created = new Set(
    fs
      .readdirSync(MIGRATIONS)
      .flatMap((f) => [
        ...fs.readFileSync(path.join(MIGRATIONS, f), 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_]+)/g),
      ])
      .map((m) => m[1]),
  );
  expect([...created].filter((t) => !TABLE_OWNERS[t])).toEqual([]);
  expect(Object.keys(TABLE_OWNERS).filter((t) => !created.has(t))).toEqual([]);
  const features = new Set(fs.readdirSync(SRC));
  expect(Object.values(TABLE_OWNERS).filter((f) => !features.has(f))).toEqual([]);
});

/** A file's text and that of the modules of its own folder it imports, where an interpolated table name is spelled. */
const withSiblings = (file: string, text: string) =>
  [
    text,
    ...[...text.matchAll(/from '\.\/([^']+)'/g)].map((m) =>
      fs.readFileSync(path.join(path.dirname(file), `${m[1]}.ts`), 'utf8'),
    ),
  ].join('\n');

test('no module writes a table another feature owns (an interpolated name: every table it or its siblings spell)', () => {
  const tables = Object.keys(TABLE_OWNERS);
  const violations: string[] = [];
  let writes = 0;
  for (const file of sourceFiles(SRC)) {
    const text = fs.readFileSync(file, 'utf8');
    const feature = featureOf(file);
    for (const target of writeTargets(text)) {
      writes++;
      const spelled = withSiblings(file, text);
      const named = target.startsWith('${') ? tables.filter((t) => spelled.includes(`'${t}'`)) : [target];
      if (!named.length) violations.push(`${path.relative(SRC, file)}: ${target} names no known table`);
      for (const table of named)
        if (TABLE_OWNERS[table] !== feature)
          violations.push(`${path.relative(SRC, file)} writes ${table}, owned by ${TABLE_OWNERS[table] ?? 'nobody'}`);
    }
  }
  expect(violations).toEqual([]);
  expect(writes).toBeGreaterThan(50);
});

test('the scan finds each kind of write and skips locks and upserts', () => {
  expect(
    writeTargets(`INSERT INTO quotes (a) VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 2;
      UPDATE deposits d SET stage = 'x'; UPDATE \${TABLE[kind]} SET x = 1; DELETE FROM reservations WHERE true;
      SELECT 1 FROM intents FOR UPDATE; SELECT 1 FROM bundles FOR UPDATE SKIP LOCKED; COPY prices FROM STDIN`),
  ).toEqual(['quotes', 'reservations', 'deposits', '${TABLE[kind]}', 'prices']);
});
