/**
 * Records the histories the replay test (replay.test.ts) replays: runs the integration suites that exercise every
 * workflow type against a private dev server (jest global setup) and, before it stops, exports one history per
 * workflow type and outcome into test/replay/histories (export-histories.ts).
 *
 *   npx tsx test/replay/record.ts                      # every workflow type, from the suites below
 *   npx tsx test/replay/record.ts test/integration/deposits.test.ts -t 'bridge failures'   # other jest arguments
 *
 * Environment: DATABASE_URL / TEMPORAL_CLI as for `npm test`; REPLAY_TYPES=processDeposit,refundDeposit keeps only
 * those types; REPLAY_LABEL=v1 adds a label to the file names (histories of an older release kept beside today's);
 * REPLAY_HISTORIES_DIR writes elsewhere.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** Suites whose flows run every workflow type in workflows/index.ts (the sweeper's schedule runs in all of them). */
const SUITES = [
  'test/integration/intents.test.ts', // intentLifecycle
  'test/integration/legacy-bundles.test.ts', // bundleLifecycle
  'test/integration/withdrawals.test.ts', // holdWithdrawal
  'test/integration/webhooks.test.ts', // deliverWebhook
  'test/integration/compliance.test.ts', // verifyCustomer
  'test/integration/deposits.test.ts', // processDeposit, refundDeposit
  'test/integration/chain-indexer.test.ts', // followChain
];

const args = process.argv.slice(2);
const run = spawnSync(
  process.execPath,
  [
    require.resolve('jest/bin/jest', { paths: [root] }),
    '--runInBand',
    '--globalTeardown',
    path.join(__dirname, 'record-teardown.ts'),
    ...(args.length ? args : SUITES),
  ],
  { cwd: root, stdio: 'inherit', env: { REPLAY_HISTORIES_DIR: path.join(__dirname, 'histories'), ...process.env } },
);
process.exit(run.status ?? 1);
