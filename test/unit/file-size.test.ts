import fs from 'node:fs';
import path from 'node:path';

/** Small modules with one job: a file of src/ past this many lines is doing more than one. */
const MAX_LINES = 400;

const files = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .filter((f) => f.endsWith('.ts'));

test(`no file in src/ is over ${MAX_LINES} lines`, () => {
  const src = path.join(__dirname, '../../src');
  const long = files(src)
    .map((f) => ({ file: path.relative(src, f), lines: fs.readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > MAX_LINES);
  expect(long).toEqual([]);
});
