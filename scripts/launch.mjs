/**
 * How the programs an operator runs by npm start (`npm run cli`, `npm run relayer`): a checkout with its dev
 * dependencies (the Quick start beside `npm start`, the devnet walk-through) runs the sources through tsx, so a
 * program is never older than the code beside it; a deployment (`npm ci --omit=dev`, the image) has no tsx and runs
 * the build in dist/ (`npm run build`).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function tsx() {
  try {
    return require('tsx/cjs/api');
  } catch (e) {
    if (e.code === 'MODULE_NOT_FOUND') return undefined; // production dependencies only
    throw e;
  }
}

/** Runs src/main/<entry>.ts, or its build. */
export function launch(entry) {
  const dev = tsx();
  if (dev) {
    dev.register();
    require(`../src/main/${entry}.ts`);
  } else {
    require(`../dist/src/main/${entry}.js`);
  }
}
