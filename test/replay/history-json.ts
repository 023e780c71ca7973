import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

/**
 * History ⇄ the JSON the Temporal CLI and Web UI export. Not @temporalio/common's historyToJSON/historyFromJSON: in
 * this install @temporalio/common and @temporalio/proto each carry their own protobufjs, so those fail with "type
 * must be a Type"; this uses the protobufjs copy that @temporalio/proto's types were built with.
 */
type ProtoJson = {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const protojson: ProtoJson = require(
  require.resolve('protobufjs/ext/protojson', { paths: [path.dirname(require.resolve('@temporalio/proto'))] }),
);
const historyType = (patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown }).lookupType(
  'temporal.api.history.v1.History',
);

export type History = temporal.api.history.v1.IHistory;

export const historyToJSON = (history: History): unknown =>
  protojson.toJson(historyType, proto.temporal.api.history.v1.History.fromObject(history));

export function historyFromJSON(json: unknown): History {
  const history = protojson.fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a history');
  return history as History;
}
