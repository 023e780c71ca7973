import type { Db, Tx } from '../db/types';
import { preparedQuery } from '../db/prepared';

/**
 * Fee sponsorship (`sponsorSettings`) is an entitlement the operator grants a project, off by default
 * (`npm run cli -- projects sponsorship <projectId> on|off`). What a submitted intent's sponsor covered is recorded
 * once per intent, for the project, and reported by GET /sponsorship.
 */

/** What a quote's sponsor covers: its USD value and, per requested token, the fee amount (decimal strings). */
export interface Sponsored {
  usd: string;
  tokens: { chainId: number; tokenAddress: string; symbol: string; decimals: number; amount: string }[];
}

export async function setSponsorship(db: Db, projectId: string, on: boolean): Promise<boolean> {
  const [, updated] = await db.query('UPDATE projects SET sponsorship = $2 WHERE id = $1', [projectId, on]);
  return updated > 0;
}

export async function hasSponsorship(db: Tx, projectId: string | undefined): Promise<boolean> {
  if (!projectId) return false;
  const [row]: { sponsorship: boolean }[] = await preparedQuery(db, 'SELECT sponsorship FROM projects WHERE id = $1', [
    projectId,
  ]);
  return !!row?.sponsorship;
}

/**
 * In the submit's transaction, for a sponsored quote: records what its sponsor covers, for its project, if the
 * project still holds the entitlement (false, and nothing recorded, when it was withdrawn since the quote). The
 * submit records an intent once (a resubmission finds it), and the key on the intent id holds that.
 */
export async function recordSponsored(tx: Tx, intentId: string, projectId: string): Promise<boolean> {
  const recorded: unknown[] = await preparedQuery(
    tx,
    `INSERT INTO sponsored_intents (intent_id, project_id, usd, tokens)
     SELECT q.nonce, q.project_id, (q.sponsored->>'usd')::numeric, q.sponsored->'tokens' FROM quotes q JOIN projects p ON p.id = q.project_id
     WHERE q.nonce = $1 AND q.project_id = $2 AND q.sponsored IS NOT NULL AND p.sponsorship
     RETURNING 1`,
    [intentId, projectId],
  );
  return recorded.length > 0;
}

/** A project's sponsored totals: intents, USD and per token (decimal strings). */
export async function sponsorshipTotals(db: Db, projectId: string) {
  const [project]: { sponsorship: boolean }[] = await db.query('SELECT sponsorship FROM projects WHERE id = $1', [
    projectId,
  ]);
  const [totals]: { intents: string; usd: string }[] = await db.query(
    'SELECT count(*)::text AS intents, coalesce(sum(usd), 0)::text AS usd FROM sponsored_intents WHERE project_id = $1',
    [projectId],
  );
  const tokens: { chainId: number; tokenAddress: string; symbol: string; decimals: number; amount: string }[] =
    await db.query(
      `SELECT (t->>'chainId')::bigint::int AS "chainId", lower(t->>'tokenAddress') AS "tokenAddress", min(t->>'symbol') AS symbol,
       min((t->>'decimals')::int) AS decimals, sum((t->>'amount')::numeric)::text AS amount
     FROM sponsored_intents s, jsonb_array_elements(s.tokens) t WHERE s.project_id = $1
     GROUP BY 1, 2 ORDER BY 1, 2`,
      [projectId],
    );
  return {
    entitled: !!project?.sponsorship,
    intents: Number(totals.intents),
    usd: totals.usd,
    tokens: tokens.map((t) => ({
      chainId: t.chainId,
      tokenAddress: t.tokenAddress,
      symbol: t.symbol,
      decimals: t.decimals,
      amount: t.amount,
    })),
  };
}
