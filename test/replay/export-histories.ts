import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { historyToJSON } from './history-json';

/** Histories past this many events are not kept: the replay test stays fast and the files small. */
const MAX_EVENTS = 400;

/**
 * Writes one history per (workflow type, outcome) of the Temporal server at TEMPORAL_ADDRESS (namespace `default`)
 * into REPLAY_HISTORIES_DIR as `<type>-<label-><case>.json`, the longest of each (the one that took most paths). The
 * case is a completed run's string result (e.g. a deposit's terminal stage), otherwise its status (`running` for
 * runs the suites left waiting). Run by record.ts before the dev server stops; runs alone against any dev server:
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 npx tsx test/replay/export-histories.ts
 */
async function main(address: string): Promise<void> {
  const dir = process.env.REPLAY_HISTORIES_DIR ?? path.join(__dirname, 'histories');
  const label = process.env.REPLAY_LABEL ? `${process.env.REPLAY_LABEL}-` : '';
  const types = process.env.REPLAY_TYPES?.split(',').filter(Boolean);
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace: 'default' });
    const chosen = new Map<
      string,
      { info: Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'historyLength'>; result?: string }
    >();
    for await (const listed of client.workflow.list()) {
      if (types && !types.includes(listed.type)) continue;
      // Visibility counts a running workflow's events only once it closes: ask the execution itself.
      const info =
        listed.status.name === 'RUNNING'
          ? await client.workflow.getHandle(listed.workflowId, listed.runId).describe()
          : listed;
      // Fewer than 3 events: no workflow task has started yet (a lifecycle in its start delay), nothing to replay.
      if (info.historyLength > MAX_EVENTS || info.historyLength < 3) continue;
      const result = info.status.name === 'COMPLETED' ? await stringResult(client, listed) : undefined;
      const key = `${info.type}-${label}${(result ?? info.status.name).toLowerCase()}`;
      const best = chosen.get(key);
      if (!best || best.info.historyLength < info.historyLength) chosen.set(key, { info, result });
    }
    fs.mkdirSync(dir, { recursive: true });
    for (const [key, { info }] of [...chosen].sort()) {
      const history = await client.workflow.getHandle(info.workflowId, info.runId).fetchHistory();
      const json = JSON.stringify(historyToJSON(history), null, 1);
      fs.writeFileSync(path.join(dir, `${key}.json`), `${json}\n`);
      process.stdout.write(`recorded ${key}.json (${info.historyLength} events, ${info.workflowId})\n`);
    }
  } finally {
    await connection.close();
  }
}

/** A completed run's result when it is a short string (a terminal stage), which names the path it took. */
async function stringResult(client: Client, info: WorkflowExecutionInfo): Promise<string | undefined> {
  const result: unknown = await client.workflow
    .getHandle(info.workflowId, info.runId)
    .result()
    .catch(() => undefined);
  return typeof result === 'string' && /^[\w-]{1,32}$/.test(result) ? result : undefined;
}

main(process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233').catch((err) => {
  console.error(err);
  process.exit(1);
});
