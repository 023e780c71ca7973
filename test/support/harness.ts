import { once } from 'node:events';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { DataSource } from 'typeorm';
import type { Client } from '@temporalio/client';
import { openDatabase } from '../../src/db/data-source';
import { spawnEntry } from '../../src/dev/processes';
import { createApp } from '../../src/http/app';
import { createServices, Services } from '../../src/http/services';
import { createTemporalClient } from '../../src/temporal/client';
import { createLogger } from '../../src/logger';
import { createProject } from '../../src/projects/api-keys';
import { loadRuntime } from '../../src/runtime';
import { readTestEnv, TestEnv } from './env';

export interface Api {
  url: string;
  env: TestEnv;
  services: Services;
  db: DataSource;
  temporal: Client;
  apiKey: string;
  projectId: string;
  indexerKey: string;
  close(): Promise<void>;
}

/** The real HTTP app in this process, against the Postgres, Temporal and worker that global setup started. */
export async function startApi(): Promise<Api> {
  const env = readTestEnv();
  const rt = loadRuntime({ ...process.env, ...env.env });
  const db = await openDatabase(env.databaseUrl, 4);
  const temporal = createTemporalClient(env.temporalAddress, 'default');
  const services = createServices(rt, db, temporal, createLogger('silent', 'test'));
  const server: Server = createApp(services).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { apiKey, projectId } = await createProject(db, 'test');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    env,
    services,
    db,
    temporal,
    apiKey,
    projectId,
    indexerKey: rt.secrets.indexerApiKey,
    async close() {
      server.close();
      await once(server, 'close');
      await services.outbox.drain();
      await temporal.connection.close();
      await services.rateLimits.close();
      await db.destroy();
    },
  };
}

/** Kills every worker of this test run at once (SIGKILL: no draining, as in a crash). */
export function killWorkers(env: TestEnv): void {
  for (const pid of fs.readFileSync(env.workerPidFile, 'utf8').split('\n').filter(Boolean).map(Number)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Starts a fresh worker process (left running; global teardown stops it). */
export function startWorker(env: TestEnv): void {
  const worker = spawnEntry('worker', env.env);
  fs.appendFileSync(env.workerPidFile, `${worker.pid}\n`);
}

export async function call(
  api: Api,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': api.apiKey, ...opts.headers },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export const ingest = (api: Api, events: unknown[]) =>
  call(api, 'POST', '/indexer/events', { body: { events }, headers: { 'x-indexer-key': api.indexerKey } });
