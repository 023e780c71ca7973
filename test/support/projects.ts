import { createProject } from '../../src/projects/api-keys';
import type { WebhookType } from '../../src/webhooks/types';
import { Api, call } from './harness';
import { Receiver } from './receiver';

/** A fresh project on the shared app, so a test sees only its own endpoints, events and customers. */
export async function newProject(api: Api, name = 'test') {
  const { apiKey, projectId } = await createProject(api.db, name);
  return { ...api, apiKey, projectId };
}
export type Project = Awaited<ReturnType<typeof newProject>>;

/** Adds the receiver as a webhook endpoint through the API and hands it the secret the API answered. */
export async function subscribe(
  p: Project,
  r: Receiver,
  types?: WebhookType[],
): Promise<{ id: string; secret: string }> {
  const res = await call(p, 'POST', '/deposit-processor/webhooks/endpoints', {
    body: { url: r.url, ...(types ? { types } : {}) },
  });
  if (res.status !== 201 || !/^whsec_/.test(res.json.secret)) throw new Error(`subscribe: ${res.status} ${res.text}`);
  r.secrets.push(res.json.secret);
  return res.json;
}
