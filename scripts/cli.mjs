/**
 * `npm run cli`: the operator CLI (src/main/cli.ts). A checkout with its dev dependencies (the Quick start beside
 * `npm start`, the devnet walk-through) runs the sources through tsx, so the CLI is never older than the code beside
 * it; a deployment (`npm ci --omit=dev`, the image) has no tsx and runs the build in dist/ (`npm run build`).
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

const dev = tsx();
if (dev) {
  dev.register();
  require('../src/main/cli.ts');
} else {
  require('../dist/src/main/cli.js');
}
