import type { Db, Tx } from '../db/types';
import { preparedQuery } from '../db/prepared';
import { InsufficientBalance, reserve } from '../ledger/ledger';
import { queuedStartInsert, type QueuedStart } from '../outbox/store';
import { proveAccount } from '../projects/account-store';
import { recordSponsored } from '../projects/sponsorship-store';
import { type IntentStatus } from '../../workflows/intent-state';
import { type LifecycleKind } from '../../workflows/contracts/intent-lifecycle';
import type { IntentOp, Submission } from './types';
import type { Liquidity } from './split';
import { claimStates, type ClaimState } from './claims';
import { DomainError } from '../errors';
import { lifecycleOf, owner, type StoredOperation } from './lifecycle-kind';
import { lockQuote } from './quote-store';

/** An intent as every version reports it: its status, chains, fill and claims, and on request its full record. */
export interface IntentRecord {
  id: string;
  status: IntentStatus;
  account: string;
  destinationChainId: number;
  fill?: { transactionHash: string; timestamp: number };
  claims: ClaimState[];
  operation: unknown;
  signatures: unknown;
  history: { status: string; at: string }[];
}

const noSuchIntent = (id: string) => new DomainError('NOT_FOUND', `No such intent with nonce ${id}`);

/** A project's intent by id; 404 for an unknown id and for another project's intent alike. */
export async function readIntent(db: Db, id: string, projectId: string): Promise<IntentRecord> {
  const [row]: {
    status: IntentStatus;
    account: string;
    destinationChainId: string;
    originChainIds: string[];
    fill: { transactionHash: string; timestamp: number } | null;
    claims: Record<string, { transactionHash: string; timestamp: number }>;
    operation: unknown;
    signatures: unknown;
    history: IntentRecord['history'];
  }[] = await preparedQuery(
    db,
    `SELECT i.status, i.account, i.destination_chain_id AS "destinationChainId", i.origin_chain_ids AS "originChainIds", i.fill, i.claims, i.operation, i.signatures, i.history
     FROM intents i JOIN quotes q ON q.nonce = i.id WHERE i.id = $1 AND q.project_id = $2`,
    [id, projectId],
  );
  if (!row) throw noSuchIntent(id);
  return {
    id,
    status: row.status,
    account: row.account,
    destinationChainId: Number(row.destinationChainId),
    ...(row.fill ? { fill: row.fill } : {}),
    claims: claimStates(row.status, row.originChainIds, row.claims),
    operation: row.operation,
    signatures: row.signatures,
    history: row.history,
  };
}

/** An accepted intent as a claim of it needs it: the operation, the sponsor's signatures, and what the ledger still holds. */
export interface ClaimableIntent {
  id: string;
  operation: IntentOp;
  signatures: Submission;
  /** `expires` has passed: The Compact accepts no claim of it any more */
  expired: boolean;
  /** the origin chains where every reservation of the intent is still held (none released by a settled claim or after `expires`) */
  heldChainIds: number[];
  /** the fill the chain indexer proved at the settlement depth, if any */
  fill: { chainId: number; transactionHash: string } | null;
}

/**
 * An intent for a claim authorization: of the project `projectId`, 404 for an unknown id and for another project's
 * intent alike; of any project without it (a relayer's key, which may fill them all).
 */
export async function readClaimable(db: Db, id: string, projectId?: string): Promise<ClaimableIntent> {
  const [row]: {
    operation: IntentOp;
    signatures: Submission;
    expired: boolean;
    heldChainIds: string[];
    fill: { chainId: number; transactionHash: string } | null;
  }[] = await preparedQuery(
    db,
    `SELECT i.operation, i.signatures, i.fill, (i.operation->>'expires')::numeric <= extract(epoch FROM now()) AS expired,
       ARRAY(SELECT r.chain_id FROM reservations r WHERE r.owner_kind = 'intent' AND r.owner_id = $1::text
         GROUP BY r.chain_id HAVING bool_and(r.released_at IS NULL)) AS "heldChainIds"
     FROM intents i JOIN quotes q ON q.nonce = i.id WHERE i.id = $1::numeric AND ($2::uuid IS NULL OR q.project_id = $2)`,
    [id, projectId ?? null],
  );
  if (!row) throw noSuchIntent(id);
  return {
    id,
    operation: row.operation,
    signatures: row.signatures,
    expired: row.expired,
    heldChainIds: row.heldChainIds.map(Number),
    fill: row.fill,
  };
}

/** What each settlement layer's relayers can fill on a chain (indexer `liquidity` events). */
export async function liquidityOn(db: Db, chainId: number): Promise<Liquidity[]> {
  const rows: { settlementLayer: string; token: string; amount: string }[] = await db.query(
    'SELECT settlement_layer AS "settlementLayer", token, amount FROM relayer_liquidity WHERE chain_id = $1',
    [chainId],
  );
  return rows.map((r) => ({ settlementLayer: r.settlementLayer, token: r.token, amount: BigInt(r.amount) }));
}

/**
 * The lifecycle starts of the recorded intents and legacy bundles among `ids`, rebuilt from their quotes: what their
 * events' signals carry to wake them (QueuedSignal.start).
 */
export async function lifecycleStarts(
  tx: Tx,
  ids: string[],
  fillGraceSeconds: number,
): Promise<Map<string, QueuedStart>> {
  const rows: { id: string; kind: LifecycleKind; account: string; projectId: string; operation: StoredOperation }[] =
    await preparedQuery(
      tx,
      `SELECT q.nonce::text AS id, x.kind, q.account, q.project_id AS "projectId", q.operation FROM quotes q JOIN (
       SELECT id, 'intent' AS kind FROM intents WHERE id = ANY($1::numeric[])
       UNION ALL SELECT id, 'bundle' FROM bundles WHERE id = ANY($1::numeric[])) x ON x.id = q.nonce`,
      [ids],
    );
  return new Map(
    rows.map((r) => [r.id, lifecycleOf(r.kind, r.id, r.account, r.projectId, r.operation, fillGraceSeconds).start]),
  );
}

/** A submit the ledger, the quote's lifetime or a sibling plan refuses; nothing was changed. */
export class SubmitRefused extends Error {
  constructor(
    message: string,
    readonly quoteGone = false,
    readonly conflict = false,
    readonly forbidden = false,
  ) {
    super(message);
  }
}

/**
 * What a session intent may spend: the project's deposit credit in the account, which its owner (src/deposits) keeps.
 * `lock` takes the (project, account) row where the lock order has an account's proof; `overdrawn` says whether the
 * intent's reservations, recorded in the same transaction, spend more than that credit.
 */
export interface SessionCredit {
  lock(tx: Tx, projectId: string, account: string): Promise<void>;
  overdrawn(tx: Tx, projectId: string, account: string, intentId: string): Promise<boolean>;
}

export interface Accepted {
  status: IntentStatus;
  start?: QueuedStart;
}

/**
 * Records a verified submission in one transaction: the sponsor's proof of its account to the project, the
 * reservation of what it spends, the intent, and the queued start of its lifecycle (performed after the commit, or by
 * the outbox sweeper if this process dies first). `credit`: signed by the project's session signer for a deposit
 * account, which proves nothing about the account and may spend only the project's deposit credit in it. Locks are taken in the global order (src/ledger/ledger.ts): the quote, the (project,
 * account) row, then balance rows. The same submission again returns the recorded status, and the queued start when
 * it has not been performed yet.
 */
export async function acceptIntent(
  db: Db,
  id: string,
  submission: Submission,
  projectId: string,
  settings: { fillGraceSeconds: number; proofDays: number },
  credit?: SessionCredit,
): Promise<Accepted> {
  return db.transaction(async (tx) => {
    const lock = await lockQuote(tx, id, 'intent', projectId);
    if (!lock.ok)
      throw lock.reason === 'missing'
        ? new SubmitRefused('Quote not found', true)
        : new SubmitRefused('Another route of this quote was already submitted', false, true);
    const { account, operation, reservations, expired, sponsored } = lock.quote;
    const { start, originChainIds, destinationChainId, fillDeadline } = lifecycleOf(
      'intent',
      id,
      account,
      projectId,
      operation,
      settings.fillGraceSeconds,
    );
    const { recorded } = lock;
    if (recorded) return { status: recorded.status, ...(recorded.queued ? { start } : {}) };
    if (expired) throw new SubmitRefused('Quote expired', true);
    if (credit) await credit.lock(tx, projectId, account);
    else await proveAccount(tx, projectId, account, 'intent', reservations, settings.proofDays);
    try {
      await reserve(tx, owner(id), account, reservations);
    } catch (e) {
      if (e instanceof InsufficientBalance) throw new SubmitRefused(e.message);
      throw e;
    }
    // One statement for the intent and its queued start (both rows only this transaction creates); the operation is
    // copied from the locked quote in PostgreSQL rather than sent back as JSON.
    const queued = queuedStartInsert(start, 8);
    await preparedQuery(
      tx,
      `WITH queued AS (${queued.sql})
       INSERT INTO intents (id, account, status, destination_chain_id, origin_chain_ids, fill_deadline, operation, signatures, history, signed_by_session)
       SELECT $1, $2, 'PENDING', $3, $4, $5, q.operation, $6, jsonb_build_array(jsonb_build_object('status', 'PENDING', 'at', now())), $7
       FROM quotes q WHERE q.nonce = $1`,
      [id, account, destinationChainId, originChainIds, fillDeadline, submission, !!credit, ...queued.params],
    );
    // Sponsored fees count for the project once, when the intent is accepted (not per quote or retried submit).
    if (sponsored && !(await recordSponsored(tx, id, projectId)))
      throw new SubmitRefused(
        'This project is no longer entitled to fee sponsorship; request a new route',
        false,
        false,
        true,
      );
    if (credit && (await credit.overdrawn(tx, projectId, account, id)))
      throw new SubmitRefused(new InsufficientBalance().message);
    return { status: 'PENDING', start };
  });
}
