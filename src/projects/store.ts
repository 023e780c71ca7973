import type { Db } from '../db/types';

/** A project's own request quota; null in both: the configured default. */
export interface Quota {
  rps: number | null;
  burst: number | null;
}

/** A project and its first API key (stored as its hash and a prefix to recognise it by), in one statement. */
export async function insertProjectWithKey(db: Db, name: string, keyHash: string, keyPrefix: string): Promise<string> {
  const [{ projectId }]: { projectId: string }[] = await db.query(
    `WITH project AS (INSERT INTO projects (name) VALUES ($1) RETURNING id)
     INSERT INTO api_keys (project_id, key_hash, key_prefix) SELECT id, $2, $3 FROM project RETURNING project_id AS "projectId"`,
    [name, keyHash, keyPrefix],
  );
  return projectId;
}

export async function projectExists(db: Db, projectId: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM projects WHERE id = $1', [projectId])).length > 0;
}

export async function setRateLimit(db: Db, projectId: string, quota: Quota): Promise<void> {
  await db.query('UPDATE projects SET rate_limit_rps = $2, rate_limit_burst = $3 WHERE id = $1', [
    projectId,
    quota.rps,
    quota.burst,
  ]);
}

interface KeyProject {
  projectId: string;
  rateLimitRps: number | null;
  rateLimitBurst: number | null;
}

/** The project of an unrevoked API key (by its hash), with the project's own quota. */
export async function liveKeyProject(db: Db, keyHash: string): Promise<KeyProject | undefined> {
  const [row]: KeyProject[] = await db.query(
    'SELECT k.project_id AS "projectId", p.rate_limit_rps AS "rateLimitRps", p.rate_limit_burst AS "rateLimitBurst" FROM api_keys k JOIN projects p ON p.id = k.project_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL',
    [keyHash],
  );
  return row;
}
