import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import * as workflows from '../../workflows';
import * as relayerWorkflows from '../../workflows/relayer';
import { historyFromJSON } from './history-json';

/**
 * Today's workflow code must replay the histories recorded from earlier code (test/replay/histories, see record.ts):
 * a change that alters the commands of a running workflow without `patched()` fails here, not in production. The
 * service's bundle replays test/replay/histories, the relayer's (`npm run relayer`, workflows/relayer) its own
 * folder, test/replay/histories/relayer.
 */
const bundles = [
  { name: 'the service', workflowsPath: '../../workflows', types: workflows, dir: path.join(__dirname, 'histories') },
  {
    name: 'the relayer',
    workflowsPath: '../../workflows/relayer',
    types: relayerWorkflows,
    dir: path.join(__dirname, 'histories/relayer'),
  },
];
const filesIn = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
const typeOf = (file: string) => file.slice(0, file.indexOf('-'));

const built = new Map<string, WorkflowBundleWithSourceMap>();
beforeAll(async () => {
  for (const b of bundles)
    built.set(
      b.name,
      await bundleWorkflowCode({ workflowsPath: require.resolve(b.workflowsPath), logger: new DefaultLogger('WARN') }),
    );
}, 120_000);

describe.each(bundles)('$name', ({ name, types, dir }) => {
  test('21.7 histories are recorded for every workflow type', () => {
    const recorded = new Set(filesIn(dir).map(typeOf));
    expect(Object.keys(types).filter((type) => !recorded.has(type))).toEqual([]);
  });

  test("21.7 every recorded history replays on today's workflow code (deterministic)", async () => {
    const histories = filesIn(dir).map((file) => ({
      workflowId: file,
      history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))),
    }));
    const failures: string[] = [];
    for await (const { workflowId, error } of Worker.runReplayHistories(
      { workflowBundle: built.get(name)!, replayName: 'replay-test' },
      histories,
    )) {
      if (error) failures.push(`${workflowId}: ${error.message.split('\n')[0]}`);
    }
    expect(failures).toEqual([]);
  });
});
