import fs from 'node:fs';
import path from 'node:path';
import * as workflows from '../../workflows';

/**
 * A workflow's type is the name of its function, exported by workflows/index.ts (what the worker registers); the
 * domain starts it by the name its contract declares. A renamed function or a mistyped name would start a workflow
 * no worker knows, which Temporal accepts and nothing ever runs.
 */
const dir = path.resolve(__dirname, '../../workflows/contracts');

function declaredTypes(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const contract = require(path.join(dir, file)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(contract))
      if (name.endsWith('WorkflowType')) out[`${file}:${name}`] = value as string;
  }
  return out;
}

test('24 every workflow type a contract declares is a workflow the worker registers, and every registered one is declared', () => {
  const declared = Object.values(declaredTypes()).sort();
  const registered = Object.entries(workflows)
    .filter(([, fn]) => typeof fn === 'function')
    .map(([name]) => name)
    .sort();
  expect(declared).toEqual(registered);
});
