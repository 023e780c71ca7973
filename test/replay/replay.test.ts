import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import * as workflows from '../../workflows';
import { historyFromJSON } from './history-json';

/**
 * Today's workflow code must replay the histories recorded from earlier code (test/replay/histories, see record.ts):
 * a change that alters the commands of a running workflow without `patched()` fails here, not in production.
 */
const dir = path.join(__dirname, 'histories');
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const typeOf = (file: string) => file.slice(0, file.indexOf('-'));

let workflowBundle: WorkflowBundleWithSourceMap;
beforeAll(async () => {
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: new DefaultLogger('WARN'),
  });
}, 60_000);

test('21.7 histories are recorded for every workflow type', () => {
  const recorded = new Set(files.map(typeOf));
  expect(Object.keys(workflows).filter((type) => !recorded.has(type))).toEqual([]);
});

test("21.7 every recorded history replays on today's workflow code (deterministic)", async () => {
  const histories = files.map((file) => ({
    workflowId: file,
    history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))),
  }));
  const failures: string[] = [];
  for await (const { workflowId, error } of Worker.runReplayHistories(
    { workflowBundle, replayName: 'replay-test' },
    histories,
  )) {
    if (error) failures.push(`${workflowId}: ${error.message.split('\n')[0]}`);
  }
  expect(failures).toEqual([]);
});
