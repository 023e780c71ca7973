import type { Db } from '../db/types';
import type { WebhookConfig } from './config';
import { DomainError } from '../errors';
import { iso } from '../db/newest-page';
import { newSecret } from './signing';
import { checkTarget } from './url-policy';
import type { WebhookType } from './types';

/** A project may configure this many live endpoints. */
export const MAX_ENDPOINTS = 20;

export interface Endpoint {
  id: string;
  url: string;
  /** null: every type */
  types: WebhookType[] | null;
  status: 'enabled' | 'disabled';
  disabledAt: string | null;
  disabledReason: string | null;
  /** when the current run of failed attempts began (null while it is healthy) */
  failingSince: string | null;
  /** until when the rotated-out secret still signs */
  previousSecretExpiresAt: string | null;
  createdAt: string;
}

/** A refused endpoint change (the CLI reports it as a configuration error). */
export class EndpointError extends DomainError {
  constructor(code: 'VALIDATION_ERROR' | 'NOT_FOUND' | 'CONFLICT', message: string) {
    super(code, message);
  }
}

const COLUMNS = `id, url, types, disabled_at AS "disabledAt", disabled_reason AS "disabledReason", failing_since AS "failingSince", created_at AS "createdAt",
  CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END AS "previousSecretExpiresAt"`;

interface Row {
  id: string;
  url: string;
  types: WebhookType[] | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  failingSince: Date | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
}
const present = (r: Row): Endpoint => ({
  id: r.id,
  url: r.url,
  types: r.types,
  status: r.disabledAt ? 'disabled' : 'enabled',
  disabledAt: iso(r.disabledAt),
  disabledReason: r.disabledReason,
  failingSince: iso(r.failingSince),
  previousSecretExpiresAt: iso(r.previousSecretExpiresAt),
  createdAt: r.createdAt.toISOString(),
});

/** Checks the target against the SSRF policy (again at every delivery) and stores it with a fresh secret. */
export async function addEndpoint(
  db: Db,
  projectId: string,
  url: string,
  types: WebhookType[] | null,
  policy: WebhookConfig,
): Promise<Endpoint & { secret: string }> {
  try {
    await checkTarget(url, policy);
  } catch (e) {
    throw new EndpointError('VALIDATION_ERROR', (e as Error).message);
  }
  const secret = newSecret();
  return db.transaction(async (tx) => {
    await tx.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [projectId]); // serialises the count below
    const [{ count }] = await tx.query(
      'SELECT count(*)::int AS count FROM webhook_endpoints WHERE project_id = $1 AND removed_at IS NULL',
      [projectId],
    );
    if (count >= MAX_ENDPOINTS)
      throw new EndpointError('CONFLICT', `A project may have at most ${MAX_ENDPOINTS} webhook endpoints`);
    const [row]: Row[] = await tx.query(
      `INSERT INTO webhook_endpoints (project_id, url, types, secret) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
      [projectId, url, types && [...new Set(types)], secret],
    );
    return { ...present(row), secret };
  });
}

export async function listEndpoints(db: Db, projectId: string): Promise<Endpoint[]> {
  const rows: Row[] = await db.query(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE project_id = $1 AND removed_at IS NULL ORDER BY created_at, id`,
    [projectId],
  );
  return rows.map(present);
}

async function update(db: Db, projectId: string, id: string, set: string, params: unknown[] = []): Promise<Row> {
  const [rows]: [Row[]] = await db.query(
    `UPDATE webhook_endpoints SET ${set}, updated_at = now() WHERE id = $1 AND project_id = $2 AND removed_at IS NULL RETURNING ${COLUMNS}`,
    [id, projectId, ...params],
  );
  if (!rows.length) throw new EndpointError('NOT_FOUND', 'Webhook endpoint not found');
  return rows[0];
}

/** Deliveries still under way to it stop at their next attempt. */
export async function removeEndpoint(db: Db, projectId: string, id: string): Promise<void> {
  await update(db, projectId, id, 'removed_at = now()');
}

/** A new secret signs from now on; the old one keeps signing too for `overlapSeconds`. */
export async function rotateSecret(
  db: Db,
  projectId: string,
  id: string,
  overlapSeconds: number,
): Promise<Endpoint & { secret: string }> {
  const secret = newSecret();
  const row = await update(
    db,
    projectId,
    id,
    'previous_secret = secret, previous_secret_expires_at = now() + make_interval(secs => $4), secret = $3',
    [secret, overlapSeconds],
  );
  return { ...present(row), secret };
}

/** Turns a disabled endpoint back on (after a 410 or days of failures); earlier failed events can then be replayed. */
export async function enableEndpoint(db: Db, projectId: string, id: string): Promise<Endpoint> {
  return present(await update(db, projectId, id, 'disabled_at = NULL, disabled_reason = NULL, failing_since = NULL'));
}
