import type { Db } from '../db/types';
import type { ProviderState } from './provider';

/** An applicant of the sandbox provider, as its own table keeps it. */
export interface SandboxApplicant {
  id: string;
  state: ProviderState;
}

/** The applicant of `reference`, opened as `id` in `needs_input` unless the reference has one already. */
export async function openSandboxApplicant(db: Db, id: string, reference: string): Promise<SandboxApplicant> {
  const [row]: SandboxApplicant[] = await db.query(
    `INSERT INTO sandbox_applicants (id, reference, state) VALUES ($1, $2, 'needs_input')
       ON CONFLICT (reference) DO UPDATE SET reference = EXCLUDED.reference RETURNING id, state`,
    [id, reference],
  );
  return row;
}

export async function sandboxApplicant(db: Db, id: unknown): Promise<SandboxApplicant | undefined> {
  const [row]: SandboxApplicant[] = await db.query('SELECT id, state FROM sandbox_applicants WHERE id = $1', [id]);
  return row;
}

/** The applicant, if its reference starts with `referencePrefix`. */
export async function sandboxApplicantWithPrefix(
  db: Db,
  id: string,
  referencePrefix: string,
): Promise<SandboxApplicant | undefined> {
  const [row]: SandboxApplicant[] = await db.query(
    'SELECT id, state FROM sandbox_applicants WHERE id = $1 AND reference LIKE $2',
    [id, `${referencePrefix}%`],
  );
  return row;
}

export async function setSandboxState(db: Db, id: string, state: ProviderState): Promise<void> {
  await db.query('UPDATE sandbox_applicants SET state = $2, updated_at = now() WHERE id = $1', [id, state]);
}
