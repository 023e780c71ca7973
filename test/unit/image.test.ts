import fs from 'node:fs';
import path from 'node:path';

/**
 * The Dockerfile's image holds no dev dependency that could run (README, Deploy). `npm ci --omit=dev` leaves out what
 * the lockfile marks `dev`. It keeps a dev dependency that a production package names as an optional peer
 * (`devOptional`): the Dockerfile removes each of those by name, and nothing else. And it keeps one a production
 * package depends on (no mark): only type declarations may be that, as removing them would break those packages' trees.
 */
const root = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
};
const removed = [...read('Dockerfile').matchAll(/rm -rf ([^\n&]*)/g)]
  .flatMap(([, paths]) => paths.split(/[\s\\]+/))
  .filter((p) => /^node_modules\/[^.]/.test(p))
  .map((p) => p.replace(/^node_modules\//, ''));

test('the image holds no dev dependency that runs: npm ci --omit=dev leaves each out, or the Dockerfile removes it', () => {
  const entry = (name: string) => lock.packages[`node_modules/${name}`] ?? {};
  const dev = Object.keys(pkg.devDependencies);
  expect(dev.filter((name) => entry(name).devOptional).sort()).toEqual(removed.sort());
  expect(dev.filter((name) => !entry(name).dev && !entry(name).devOptional && !name.startsWith('@types/'))).toEqual([]);
});
