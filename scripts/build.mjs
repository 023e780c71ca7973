/**
 * `npm run build`: what `npm run api`, `npm run worker`, `npm run cli` (in a deployment) and the image run, in dist/.
 * It needs production dependencies only, since a deployment runs `npm ci --omit=dev` before it:
 * - every module of src/, workflows/ and activities/ transpiled on its own to CommonJS by @swc/core (the compiler the
 *   Temporal SDK's workflow bundler brings anyway), each with its source map; `npm run typecheck` checks the types;
 * - the JSON files the code imports, copied beside it, and our contracts' ABIs (solidity/artifacts.json, which the
 *   relayer calls them with);
 * - the workflows bundled once into dist/workflow-bundle.js, for a worker to load (WORKFLOW_BUNDLE) instead of
 *   bundling them at each start.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import swc from '@swc/core';
import temporal from '@temporalio/worker';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const SOURCES = ['src', 'workflows', 'activities'];

/** What tsconfig.json compiles to: ES2022, CommonJS, default imports of CommonJS modules as esModuleInterop does. */
const transpile = (file, out) =>
  swc.transformFile(file, {
    swcrc: false,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: true,
    inlineSourcesContent: false,
    sourceFileName: path.relative(path.dirname(out), file),
  });

async function build(relative) {
  const file = path.join(root, relative);
  const out = path.join(dist, relative.replace(/\.ts$/, '.js'));
  await fs.mkdir(path.dirname(out), { recursive: true });
  if (relative.endsWith('.json')) return fs.copyFile(file, out);
  const { code, map } = await transpile(file, out);
  await fs.writeFile(out, `${code.trimEnd()}\n//# sourceMappingURL=${path.basename(out)}.map\n`);
  await fs.writeFile(`${out}.map`, map);
}

await fs.rm(dist, { recursive: true, force: true });
const modules = (
  await Promise.all(
    SOURCES.map(async (dir) =>
      (await fs.readdir(path.join(root, dir), { recursive: true })).map((f) => path.join(dir, f)),
    ),
  )
)
  .flat()
  .filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f.endsWith('.json'))
  .concat('solidity/artifacts.json');
await Promise.all(modules.map(build));

const { code } = await temporal.bundleWorkflowCode({
  workflowsPath: path.join(dist, 'workflows'),
  logger: new temporal.DefaultLogger('WARN'),
});
await fs.writeFile(path.join(dist, 'workflow-bundle.js'), code);
console.log(`dist/: ${modules.length} modules and files, the workflow bundle`);
