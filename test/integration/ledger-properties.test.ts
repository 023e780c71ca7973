import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { applyEvents } from '../../src/ingestion/apply-events';
import {
  InsufficientBalance,
  releaseAfterExpiry,
  releaseSettled,
  reserve,
  settleOnClaims,
} from '../../src/ledger/ledger';
import { WALLET } from '../../src/ledger/store';
import { readTestEnv } from '../support/env';

/**
 * The ledger's rules as a property: random sequences of reservations (intent, withdrawal and bundle owners),
 * claims (with or without their block), balance snapshots (with or without a block timestamp, in or out of order)
 * and expiries, run against the real PostgreSQL through the ledger functions, and checked after every step against
 * a model of the rules: a reservation succeeds only within what the stored balance holds beyond the active
 * reservations, and a reservation is released only once the stored snapshot of its key is at or after its claim's
 * block, or of a block whose timestamp is at or after its `expires` (and then at once).
 */

// A chain of its own: these snapshots reach the ledger directly, on a clock of their own (below), which the stamped
// snapshots other suites post through the route (which refuses timestamps that contradict stored ones) must not meet.
const CHAIN = 918_453;
const TOKEN = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const LOCK_TAG = '0x000000000000000000000001';
const KINDS = ['intent', 'withdrawal', 'bundle'] as const;
/** Block timestamps never decrease: block n is at BASE + 12n. */
const BASE = 1_800_000_000;
const timestampOf = (block: number) => BASE + 12 * block;
/** Owner n's `expires`, halfway between two blocks of the range, so snapshots fall on either side of it. */
const expiresOf = (owner: number) => BASE + 12 * (2 + 4 * owner) + 6;

type Key = 'lock' | 'wallet';
/**
 * Blocks are relative to the newest block the sequence has reached, so the chain moves on: a snapshot `step`s from
 * it (a negative step is a late, out-of-order one), a claim is mined `step` blocks on (or reported without its block).
 */
type Op =
  | { t: 'snapshot'; key: Key; amount: number; step: number; stamped: boolean }
  | { t: 'reserve'; owner: number; key: Key; amount: number }
  | { t: 'claim'; owner: number; step?: number }
  | { t: 'expire'; owner: number };

const key = fc.constantFrom<Key>('lock', 'wallet');
const owner = fc.integer({ min: 0, max: 2 }); // one of each kind
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('snapshot' as const),
      key,
      amount: fc.integer({ min: 0, max: 2000 }),
      step: fc.integer({ min: -1, max: 3 }),
      stamped: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ t: fc.constant('reserve' as const), owner, key, amount: fc.integer({ min: 1, max: 400 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('claim' as const),
      owner,
      step: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('expire' as const), owner }) },
);

interface Snapshot {
  amount: number;
  block: number;
  timestamp?: number;
}
interface Row {
  owner: number;
  key: Key;
  amount: number;
  afterBlock?: number;
  afterTime?: number;
  released: boolean;
}

/** The rules, as docs/indexer.md states them (when held funds are released). */
class Model {
  stored: Partial<Record<Key, Snapshot>> = {};
  rows: Row[] = [];

  active = (k?: Key) => this.rows.filter((r) => !r.released && (k === undefined || r.key === k));

  snapshot(k: Key, amount: number, block: number, timestamp?: number): void {
    const cur = this.stored[k];
    if (cur && cur.block > block) return; // older than the stored one: ignored
    // Without a timestamp of its own, the stored one stays as a lower bound.
    this.stored[k] = { amount, block, timestamp: timestamp ?? cur?.timestamp };
    this.settle();
  }

  /** Whether the reservation fits; records it if so. */
  reserve(owner: number, k: Key, amount: number): boolean {
    const balance = this.stored[k];
    if (!balance) return false;
    const held = this.active(k).reduce((s, r) => s + r.amount, 0);
    if (balance.amount - held < amount) return false;
    this.rows.push({ owner, key: k, amount, released: false });
    return true;
  }

  claim(owner: number, block?: number): void {
    for (const r of this.active().filter((r) => r.owner === owner && r.afterBlock === undefined))
      r.afterBlock = block ?? (this.stored[r.key]?.block ?? 0) + 1;
    this.settle();
  }

  expire(owner: number): void {
    for (const r of this.active().filter(
      (r) => r.owner === owner && r.afterBlock === undefined && r.afterTime === undefined,
    ))
      r.afterTime = expiresOf(owner);
    this.settle();
  }

  private settle(): void {
    for (const r of this.active()) {
      const s = this.stored[r.key];
      if (!s) continue;
      const claimShown = r.afterBlock !== undefined && r.afterBlock <= s.block;
      const expiryShown = r.afterTime !== undefined && s.timestamp !== undefined && r.afterTime <= s.timestamp;
      if (claimShown || expiryShown) r.released = true;
    }
  }
}

let db: DataSource;
beforeAll(async () => {
  db = await openDatabase(readTestEnv().databaseUrl, 2);
});
afterAll(() => db.destroy());

const describeRow = (r: { owner: number; key: Key; amount: number; afterBlock?: number; afterTime?: number }) =>
  `${r.owner}:${r.key}:${r.amount}:${r.afterBlock ?? '-'}:${r.afterTime ?? '-'}`;

/** The database's active reservations of an account, in the model's terms. */
async function activeRows(account: string, run: string): Promise<string[]> {
  const rows: {
    owner_id: string;
    lock_tag: string;
    amount: string;
    release_after_block: string | null;
    release_after_time: string | null;
  }[] = await db.query(
    'SELECT owner_id, lock_tag, amount, release_after_block, release_after_time FROM reservations WHERE account = $1 AND released_at IS NULL',
    [account],
  );
  return rows
    .map((r) =>
      describeRow({
        owner: Number(r.owner_id.slice(run.length + 1)),
        key: r.lock_tag === WALLET ? 'wallet' : 'lock',
        amount: Number(r.amount),
        ...(r.release_after_block !== null ? { afterBlock: Number(r.release_after_block) } : {}),
        ...(r.release_after_time !== null ? { afterTime: Number(r.release_after_time) } : {}),
      }),
    )
    .sort();
}

const storedAmount = async (account: string, k: Key): Promise<bigint | undefined> => {
  const [row]: { amount: string }[] =
    k === 'wallet'
      ? await db.query('SELECT amount FROM wallet_balances WHERE account = $1', [account])
      : await db.query('SELECT amount FROM lock_balances WHERE account = $1', [account]);
  return row ? BigInt(row.amount) : undefined;
};

type Resolved =
  | { t: 'snapshot'; key: Key; amount: number; block: number; stamped: boolean }
  | { t: 'reserve'; owner: number; key: Key; amount: number }
  | { t: 'claim'; owner: number; block?: number }
  | { t: 'expire'; owner: number };

async function apply(step: Resolved, account: string, run: string, seq: number): Promise<boolean | void> {
  const who = (n: number) => ({ kind: KINDS[n % KINDS.length], id: `${run}-${n}` });
  return db.transaction(async (tx) => {
    switch (step.t) {
      case 'snapshot': {
        const amount = String(step.amount);
        const { snapshotAccounts } = await applyEvents(
          tx,
          [
            {
              id: `${run}-snap-${seq}`,
              type: 'balance',
              chainId: CHAIN,
              account,
              token: TOKEN,
              blockNumber: String(step.block),
              ...(step.key === 'wallet' ? { unlocked: amount } : { locked: amount, lockTag: LOCK_TAG }),
              ...(step.stamped ? { blockTimestamp: timestampOf(step.block) } : {}),
            },
          ],
          LOCK_TAG,
        );
        await releaseSettled(tx, snapshotAccounts);
        return;
      }
      case 'reserve':
        try {
          await reserve(tx, who(step.owner), account, [
            {
              chainId: CHAIN,
              token: TOKEN,
              lockTag: step.key === 'wallet' ? WALLET : LOCK_TAG,
              amount: String(step.amount),
            },
          ]);
          return true;
        } catch (e) {
          if (e instanceof InsufficientBalance) return false;
          throw e;
        }
      case 'claim':
        return settleOnClaims(tx, [
          {
            owner: who(step.owner),
            chainId: CHAIN,
            claimBlock: step.block === undefined ? undefined : String(step.block),
          },
        ]);
      case 'expire':
        return releaseAfterExpiry(tx, who(step.owner), expiresOf(step.owner));
    }
  });
}

test('21.2 property: reservations never exceed the balance, and none is released before a snapshot shows its claim or a block at or after its expires', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 40, size: 'max' }), async (random) => {
      // Both keys start funded (block 1, no timestamp), so reservations happen from the first step.
      const ops: Op[] = [
        { t: 'snapshot', key: 'lock', amount: 1000, step: 0, stamped: false },
        { t: 'snapshot', key: 'wallet', amount: 1000, step: 0, stamped: false },
        ...random,
      ];
      let chain = 1; // the newest block reached
      const run = randomBytes(6).toString('hex');
      const account = `0x${randomBytes(20).toString('hex')}`;
      const model = new Model();
      for (const [seq, next] of ops.entries()) {
        const step: Resolved =
          next.t === 'snapshot'
            ? { ...next, block: Math.max(1, chain + next.step) }
            : next.t === 'claim'
              ? { t: 'claim', owner: next.owner, ...(next.step !== undefined ? { block: chain + next.step } : {}) }
              : next;
        if (step.t === 'snapshot' || (step.t === 'claim' && step.block)) chain = Math.max(chain, step.block!);
        const outcome = await apply(step, account, run, seq);
        if (step.t === 'snapshot')
          model.snapshot(step.key, step.amount, step.block, step.stamped ? timestampOf(step.block) : undefined);
        if (step.t === 'claim') model.claim(step.owner, step.block);
        if (step.t === 'expire') model.expire(step.owner);
        if (step.t === 'reserve') {
          expect(outcome).toBe(model.reserve(step.owner, step.key, step.amount));
          if (outcome) {
            // Never more reserved than the stored balance holds.
            const held = model.active(step.key).reduce((s, r) => s + BigInt(r.amount), 0n);
            expect(held).toBeLessThanOrEqual((await storedAmount(account, step.key))!);
          }
        }
        // Released exactly when the rules say: never before (the double spend), never withheld after.
        expect(await activeRows(account, run)).toEqual(model.active().map(describeRow).sort());
      }
    }),
    { numRuns: 50 },
  );
}, 120_000);

/**
 * Deposit credit (src/deposits/credit-store.ts), against the real PostgreSQL: random sequences of deposits into one address
 * (the project's own, and another project's), refunds made outside the processor (some after a refund intent that
 * failed), session intents of the project (accepted only within its credit, as acceptIntent decides), their claims
 * and their releases. A session intent is accepted exactly when, with it, what the project's session intents hold
 * (reserved, or claimed) stays within what its own live deposits brought in (all but those refunded by a transfer
 * made outside): another project's deposits and a deposit refunded outside never count.
 */
type CreditOp =
  | { t: 'deposit'; own: boolean; amount: number }
  | { t: 'refund-outside'; deposit: number; afterFailedIntent: boolean }
  | { t: 'intent'; amount: number }
  | { t: 'claim'; intent: number }
  | { t: 'release'; intent: number };

const creditOp: fc.Arbitrary<CreditOp> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('deposit' as const),
      own: fc.boolean(),
      amount: fc.integer({ min: 1, max: 1000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('refund-outside' as const),
      deposit: fc.nat(20),
      afterFailedIntent: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('intent' as const), amount: fc.integer({ min: 1, max: 1500 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('claim' as const), intent: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('release' as const), intent: fc.nat(20) }) },
);

test("deposit credit is exact, property: session intents never hold more than the project's own live deposits brought in", async () => {
  const { createProject } = await import('../../src/projects/api-keys');
  const { lockDepositAccount, overdrawsDepositCredit } = await import('../../src/deposits/credit-store');
  const [own, other] = [await createProject(db, 'credit-own'), await createProject(db, 'credit-other')];
  const chain = 8453;
  let nonce = BigInt(`0x${randomBytes(8).toString('hex')}`) << 96n;
  await fc.assert(
    fc.asyncProperty(fc.array(creditOp, { minLength: 5, maxLength: 30 }), async (ops) => {
      const account = `0x${randomBytes(20).toString('hex')}`;
      for (const p of [own, other]) {
        await db.query(
          `INSERT INTO deposit_accounts (address, project_id, owner, owner_type, managed, session_signer, target_chain_id, target_token, recipient)
           VALUES ($1, $2, $1, 'EOA', true, $1, 42161, $3, $1)`,
          [account, p.projectId, TOKEN],
        );
      }
      const deposits: { id: string; own: boolean; amount: number; live: boolean }[] = [];
      const intents: { id: string; amount: number; claimed: boolean; released: boolean }[] = [];
      /** Session intents that still hold funds: reserved, or claimed (spent). */
      const held = () => intents.filter((i) => i.claimed || !i.released).reduce((s, i) => s + i.amount, 0);
      const brought = () => deposits.filter((d) => d.own && d.live).reduce((s, d) => s + d.amount, 0);
      /** A session intent recorded as acceptIntent records one; rolled back when it overdraws. */
      const sessionIntent = async (amount: number, status: string): Promise<string | undefined> => {
        const id = String(nonce++);
        try {
          await db.transaction(async (tx) => {
            await tx.query("INSERT INTO allocator_nonces (nonce, sponsor, purpose) VALUES ($1, $2, 'intent')", [
              id,
              account,
            ]);
            await tx.query(
              `INSERT INTO quotes (nonce, project_id, account, operation, cost, reservations, expires_at) VALUES ($1, $2, $3, '{}', '{}', '[]', now() + interval '1 hour')`,
              [id, own.projectId, account],
            );
            await lockDepositAccount(tx, own.projectId, account);
            await tx.query(
              `INSERT INTO reservations (owner_kind, owner_id, account, chain_id, token, lock_tag, amount) VALUES ('intent', $1, $2, $3, $4, '${WALLET}', $5)`,
              [id, account, chain, TOKEN, amount],
            );
            await tx.query(
              `INSERT INTO intents (id, account, status, destination_chain_id, origin_chain_ids, fill_deadline, operation, signatures, signed_by_session)
               VALUES ($1, $2, $3, 42161, '{8453}', 0, '{}', '{}', true)`,
              [id, account, status],
            );
            if (await overdrawsDepositCredit(tx, own.projectId, account, id)) throw new InsufficientBalance();
          });
          return id;
        } catch (e) {
          if (e instanceof InsufficientBalance) return undefined;
          throw e;
        }
      };
      for (const op of ops) {
        if (op.t === 'deposit') {
          const [{ id }] = await db.query(
            `INSERT INTO deposits (project_id, account, chain_id, tx_hash, log_index, token, amount, sender, block_number, target_chain_id, target_token, recipient)
             VALUES ($1, $2, $3, $4, 0, $5, $6, $2, 1, 42161, $5, $2) RETURNING id`,
            [
              op.own ? own.projectId : other.projectId,
              account,
              chain,
              `0x${randomBytes(32).toString('hex')}`,
              TOKEN,
              op.amount,
            ],
          );
          deposits.push({ id, own: op.own, amount: op.amount, live: true });
        } else if (op.t === 'refund-outside') {
          const d = deposits[op.deposit % Math.max(1, deposits.length)];
          if (!d || !d.live) continue;
          // Some refunds follow a refund intent that failed: recorded on the deposit, released, never claimed.
          const failed = op.afterFailedIntent ? await sessionIntent(1, 'FAILED') : undefined;
          if (failed) {
            await db.query(
              "UPDATE reservations SET released_at = now() WHERE owner_kind = 'intent' AND owner_id = $1",
              [failed],
            );
            intents.push({ id: failed, amount: 1, claimed: false, released: true });
          }
          await db.query(
            "UPDATE deposits SET stage = 'refunded', refund_intent_id = $2, refunded_by = 'transfer', refund_tx_hash = $3 WHERE id = $1",
            [d.id, failed ?? null, `0x${randomBytes(32).toString('hex')}`],
          );
          d.live = false;
        } else if (op.t === 'intent') {
          const id = await sessionIntent(op.amount, 'PENDING');
          // Refused exactly when it would pass the credit (the model decides before, the database after).
          expect(id !== undefined).toBe(held() + op.amount <= brought());
          if (id) intents.push({ id, amount: op.amount, claimed: false, released: false });
        } else {
          const i = intents[op.intent % Math.max(1, intents.length)];
          if (!i || i.claimed || i.released) continue;
          if (op.t === 'claim') {
            await db.query(`UPDATE intents SET claims = jsonb_build_object('${chain}', '{}'::jsonb) WHERE id = $1`, [
              i.id,
            ]);
            i.claimed = true;
          }
          await db.query("UPDATE reservations SET released_at = now() WHERE owner_kind = 'intent' AND owner_id = $1", [
            i.id,
          ]);
          i.released = true;
        }
      }
    }),
    { numRuns: 40 },
  );
}, 120_000);
