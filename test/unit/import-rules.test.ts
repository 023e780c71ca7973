import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The import rules of .dependency-cruiser.cjs, run as `npm run deps` (part of `npm test`) runs them: through
 * dependency-cruiser's CLI (the package is ESM only, which jest's CommonJS runtime cannot load).
 */
const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'); // not among the package's exports

function depcruise(args: string[]) {
  const run = spawnSync(process.execPath, [cli, '--config', '.dependency-cruiser.cjs', ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  if (!run.stdout) throw new Error(`depcruise printed nothing: ${run.stderr}`);
  return run;
}

/** `npm run deps`: its report, and the exit status CI fails on (the JSON reporter always exits 0). */
function depsCheck(...paths: string[]): { status: number | null; report: string } {
  const run = depcruise(paths);
  return { status: run.status, report: run.stdout };
}

interface Violation {
  rule: { name: string; severity: string };
  from: string;
  to: string;
  cycle?: { name: string; dependencyTypes: string[] }[];
}
const violations = (...paths: string[]): Violation[] =>
  (JSON.parse(depcruise(['--output-type', 'json', ...paths]).stdout) as { summary: { violations: Violation[] } })
    .summary.violations;

test('24.1 an import circle fails the deps check, a type-only arrow included', () => {
  const { status, report } = depsCheck('test/fixtures/import-cycle');
  expect(status).not.toBe(0);
  expect(report).toContain('error no-circular: test/fixtures/import-cycle/a.ts');
  const [cycle, ...others] = violations('test/fixtures/import-cycle');
  expect(others).toEqual([]);
  expect(cycle.rule).toEqual({ name: 'no-circular', severity: 'error' });
  // a → b at run time, b → a by `import type`
  expect(cycle.cycle).toEqual([
    { name: 'test/fixtures/import-cycle/b.ts', dependencyTypes: expect.not.arrayContaining(['type-only']) },
    { name: 'test/fixtures/import-cycle/a.ts', dependencyTypes: expect.arrayContaining(['type-only']) },
  ]);
});

test('Domain errors independent of transport: a domain module importing src/http fails the deps check; a route module may', () => {
  const { status, report } = depsCheck('test/fixtures/domain-imports-http');
  expect(status).not.toBe(0);
  expect(violations('test/fixtures/domain-imports-http').map((v) => [v.rule.name, v.from, v.to])).toEqual([
    [
      'domain-imports-no-http',
      'test/fixtures/domain-imports-http/src/intents/refuse.ts',
      'test/fixtures/domain-imports-http/src/http/errors.ts',
    ],
  ]);
  expect(report).toContain('error domain-imports-no-http');
});

test('Production without dev dependencies: a module the API or the worker loads importing a devDependency at run time, or an entry point reaching a development module, fails the deps check', () => {
  const fixture = 'test/fixtures/production-imports-dev';
  const { status, report } = depsCheck(fixture);
  expect(status).not.toBe(0);
  expect(report).toContain('error not-to-dev-dep');
  // The type-only import (src/http/schema.ts) and the development module's own dev dependency pass.
  expect(violations(fixture).map((v) => [v.rule.name, v.from, v.to])).toEqual([
    ['entries-reach-no-dev-module', `${fixture}/src/main/worker.ts`, `${fixture}/src/dev/stack.ts`],
    ['not-to-dev-dep', `${fixture}/src/settings/read.ts`, 'node_modules/yaml/dist/index.js'],
  ]);
});

test('24.1 src, workflows, activities and scripts have no import circle and keep the import rules', () => {
  const { status, report } = depsCheck('src', 'workflows', 'activities', 'scripts');
  expect({ status, report }).toEqual({ status: 0, report: expect.stringContaining('no dependency violations found') });
});

/** The top-level folder of a module: `src/<folder>` (or the file directly under src), else its first segment. */
const room = (file: string) => {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? `src/${parts[1]}` : parts[0] === 'src' ? file : parts[0];
};

test('top-level folders that import each other: only the five known pairs (docs/architecture.md, The code, folder by folder)', () => {
  const { modules } = JSON.parse(depcruise(['--output-type', 'json', 'src', 'workflows', 'activities']).stdout) as {
    modules: { source: string; dependencies: { resolved: string; coreModule: boolean }[] }[];
  };
  const arrows = new Set(
    modules.flatMap(({ source, dependencies }) =>
      dependencies
        .filter((d) => !d.coreModule && !d.resolved.includes('node_modules') && room(d.resolved) !== room(source))
        .map((d) => `${room(source)} -> ${room(d.resolved)}`),
    ),
  );
  const pairs = [...arrows]
    .map((a) => a.split(' -> '))
    .filter(([from, to]) => from < to && arrows.has(`${to} -> ${from}`))
    .map(([from, to]) => `${from} <-> ${to}`)
    .sort();
  expect(pairs).toEqual([
    'src/analytics <-> src/http', // http/services.ts holds the unattributed-events gate's type
    'src/compliance <-> src/http', // and the identity provider's
    'src/config.ts <-> src/http', // and the settings'; config.ts composes the HTTP settings
    'src/deposits <-> src/errors.ts', // errors.ts types the deposit codes from deposits/error-codes.json
    'src/http <-> src/projects', // and the API-key store's and the quotas'
  ]);
});
