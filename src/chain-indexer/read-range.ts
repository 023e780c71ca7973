import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/types';
import type { PublicClient } from 'viem';
import type { ChainRpc } from '../chains/rpc';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/registry';
import { batchConflict } from '../ingestion/consistency';
import { ingestEvents, type IngestDeps } from '../ingestion/ingest';
import { quotedPlans, type QuotedPlan } from '../intents/quote-store';
import { expiredHolds, walletHolders, WALLET } from '../ledger/ledger';
import { permit2Claims, type WalletHold } from './permit2-claims';
import { joinLockId } from '../chains/lock-tag';
import type { BalanceEvent, IndexerEvent } from '../ingestion/types';
import type { DepositVoidEvent } from '../deposits/indexer-events';
import type { Outbox } from '../outbox/outbox';
import {
  RECENT_RANGES,
  type BalanceKey,
  type ChainCursor,
  type ChainStream,
  type DepositKey,
  type RangeRead,
  type ReportedRange,
} from '../../workflows/contracts/follow-chain';
import type { ChainIndexerConfig, FollowedChain } from './config';
import { balancesOf, ends, filterKey, nonceSpent, readLogs, shallowBalances, type ChainRead } from './chain-reads';
import { eventId, keyDigest, toEvents } from './to-events';
import { watchedAccounts } from './store';

export interface ChainIndexerDeps {
  db: Db;
  /** what a batch's ingestion reads, the chains followed, and the allocator whose lock tag the chains' events carry */
  config: Omit<IngestDeps['config'], 'chainIndexer'> & {
    chainIndexer: ChainIndexerConfig;
    secrets: { allocatorPrivateKey?: `0x${string}` };
  };
  outbox: Outbox;
  registry: ChainRegistry;
  rpc: ChainRpc;
  defaultLockTag: string;
  log: { warn(obj: object, msg: string): void };
}

/** Ranges ending this far below the head are taken as final: their balances are not kept for a rewind. */
const REORG_HORIZON = 256n;
/** How long a read caught up with the chain waits for its next block before it returns (the workflow then reads again). */
const IDLE_MS = 30_000;
/** Events per ingestion transaction: the route's batch limit. */
const BATCH = 1000;

/** The chain indexer's activity, built once per worker. */
export function chainIndexerActivities(deps: ChainIndexerDeps) {
  // Claims of this allocator's nonces are reported; other allocators' are not ours.
  const allocator = () => privateKeyToAccount(deps.config.secrets.allocatorPrivateKey!).address;
  const ahead: Lookahead = new Map();
  return {
    readChainRange: (chainId: number, stream: ChainStream, cursor: ChainCursor): Promise<RangeRead> => {
      const chain = deps.config.chainIndexer.chains.find((c) => c.chainId === chainId);
      if (!chain || !deps.registry.chain(chainId))
        throw ApplicationFailure.nonRetryable(`chain ${chainId} is not followed here (INDEXER_CHAINS, the registry)`);
      // The process's client of the chain (its config requires RPC_URL_<chainId>); a failed call fails the activity,
      // and Temporal's retry (with backoff) reads the range again.
      const client = deps.rpc.client(chainId)!;
      return readChainRange({ ...deps, allocator: allocator() }, chain, stream, client, cursor, ahead);
    },
  };
}

/**
 * Per chain and stream, the next range's chain reads, begun while this range is ingested (during a backfill, when the
 * next range is confirmed already): the workflow asks for it at once, and finds its logs read. Taken only by the read
 * that continues this range (its start, after this range's end hash) with the same filters; the checks of a range
 * (its parent, its blocks' hashes, its end read again last) are made when it is taken.
 */
type Lookahead = Map<string, { from: bigint; parent: string; read: Promise<ChainRead | undefined> }>;

/**
 * One step of a chain's stream: if the cursor's block was abandoned, rewind to the newest reported range still
 * canonical; else read the next range of confirmed blocks (at most `blockRange`, ending at the head minus the
 * stream's depth), turn its logs into indexer events and ingest them in-process, and move the cursor to its end.
 */
export async function readChainRange(
  deps: ChainIndexerDeps & { allocator: string },
  chain: FollowedChain,
  stream: ChainStream,
  client: PublicClient,
  cursor: ChainCursor,
  ahead?: Lookahead,
): Promise<RangeRead> {
  const depth = BigInt(stream === 'settlements' ? chain.settlementConfirmations : chain.confirmations);
  const from = cursor.last ? BigInt(cursor.last.number) + 1n : BigInt(chain.startBlock);
  const key = `${chain.chainId}:${stream}`;
  const next = ahead?.get(key);
  ahead?.delete(key);
  const early = next && next.from === from && next.parent === cursor.last?.hash ? await next.read : undefined;
  let head = early?.head ?? (await client.getBlockNumber());
  // Caught up: the next block is waited for here, the head polled every INDEXER_POLL_MS, rather than in a workflow
  // timer (Temporal fires timers on whole seconds: a block would wait a second to be seen). The activity heartbeats.
  for (const idleUntil = Date.now() + IDLE_MS; head - depth < from && Date.now() < idleUntil;) {
    await new Promise((r) => setTimeout(r, deps.config.chainIndexer.pollMs));
    head = await client.getBlockNumber();
  }
  const confirmed = head - depth;
  if (confirmed < from) return { cursor, events: 0, rewound: 0 };
  const to =
    early?.to ?? (from + BigInt(chain.blockRange) - 1n < confirmed ? from + BigInt(chain.blockRange) - 1n : confirmed);
  const [fromBlock, toBlock] = early ? [early.fromBlock, early.toBlock] : await ends(client, from, to);
  // The range must continue the reported chain: else the cursor's block was abandoned.
  if (cursor.last && fromBlock.parentHash !== cursor.last.hash) return rewind(deps, chain, client, cursor);

  const watched =
    stream === 'settlements' ? await watchedAccounts(deps.db) : { accounts: [], refundRecipients: new Map() };
  const holders = new Map<string, WalletHold[]>();
  if (stream === 'settlements')
    for (const { nonce, account, token } of await walletHolders(deps.db, chain.chainId)) {
      const holds = holders.get(account) ?? [];
      if (!holds.length) holders.set(account, holds);
      const hold = holds.find((h) => h.nonce === nonce);
      if (hold) hold.tokens.add(token);
      else holds.push({ nonce, tokens: new Set([token]) });
    }
  const filter = { accounts: watched.accounts, spenders: [...holders.keys()] };
  const range = { head, to, fromBlock, toBlock };
  const chainRead =
    early?.filter === filterKey(filter)
      ? early
      : await readLogs(deps.allocator, chain, stream, client, filter, from, range);
  // The next range is read while this one is judged and ingested, with this one's filters.
  if (ahead && to < confirmed) {
    const start = to + 1n;
    const end = start + BigInt(chain.blockRange) - 1n < confirmed ? start + BigInt(chain.blockRange) - 1n : confirmed;
    const read = ends(client, start, end)
      .then(([startBlock, endBlock]) =>
        readLogs(deps.allocator, chain, stream, client, filter, start, {
          head,
          to: end,
          fromBlock: startBlock,
          toBlock: endBlock,
        }),
      )
      // A failed read ahead is made again by the range that needs it.
      .catch(() => undefined);
    ahead.set(key, { from: start, parent: toBlock.hash!, read });
  }
  const { logs: read, blocks } = chainRead;
  const shallow = shallowBalances(chain);
  const ledgerLocks: ChainStream = shallow ? 'settlements' : 'balances';
  const logs = [
    ...read,
    ...(await permit2Claims(read, holders, (owner, nonce, block) => nonceSpent(client, chain, owner, nonce, block))),
  ];
  // Holds past their `expires` at this range's end are released by a snapshot here, whatever moved on the account:
  // locks in the stream that reads the ledger's (The Compact's balanceOf), wallets in the `settlements` stream.
  const expiring = (await expiredHolds(deps.db, chain.chainId, Number(toBlock.timestamp)))
    .filter((h) => stream === (h.lockTag === WALLET ? 'settlements' : ledgerLocks))
    .map(({ account, token, lockTag }): BalanceKey =>
      lockTag === WALLET ? { account, token } : { account, lockId: joinLockId(lockTag, token) },
    );
  const undeclared = [...new Set(logs.flatMap((l) => (l.kind === 'fill' && !l.recipient ? [l.nonce.toString()] : [])))];
  const plans = undeclared.length ? await quotedPlans(deps.db, undeclared) : new Map<string, QuotedPlan>();
  const resnapshot =
    cursor.resnapshot && to > BigInt(cursor.resnapshot.above) ? cursor.resnapshot.balances : ([] as BalanceKey[]);
  const { events, balances, deposits } = await toEvents({
    chainId: chain.chainId,
    logs,
    blocks,
    accounts: new Set(watched.accounts),
    spenders: new Set(holders.keys()),
    refundRecipients: watched.refundRecipients,
    registry: deps.registry,
    end: toBlock,
    unconfirmed: stream === 'balances' && shallow,
    resnapshot: [...resnapshot, ...expiring],
    recipientOf: (nonce) => plans.get(nonce.toString())?.recipient,
    balancesOf: (keys, block) => balancesOf(client, chain, keys, block),
  });
  const voids = stillMissing(cursor.voids, deposits, to);
  if (voids.due.length) events.push(...voids.due.map((key) => voidEvent(chain.chainId, toBlock.hash!, key)));
  // The range's end is re-read last: a reorg under it while it was read fails the attempt, which reads it again.
  if ((await client.getBlock({ blockNumber: to })).hash !== toBlock.hash)
    throw new Error(`block ${to} of chain ${chain.chainId} changed while its range was read`);
  await ingest(deps, events);

  const block = { number: to.toString(), hash: toBlock.hash! };
  const keep = head - to < REORG_HORIZON;
  const reported: ReportedRange = { block, balances: keep ? balances : [], deposits: keep ? deposits : [] };
  const pending = {
    ...(cursor.resnapshot && !resnapshot.length ? { resnapshot: cursor.resnapshot } : {}),
    ...(voids.pending ? { voids: voids.pending } : {}),
  };
  return {
    cursor: { last: block, recent: [...cursor.recent, reported].slice(-RECENT_RANGES), ...pending },
    events: events.length,
    rewound: 0,
  };
}

/**
 * The deposits a rewind abandoned that the new branch has not reported yet: those this range reported (their
 * transaction mined again) are found; once the range ends at or above the abandoned branch's highest block, the
 * rest are `due` to be voided, else still `pending`.
 */
export function stillMissing(
  voids: ChainCursor['voids'],
  reported: DepositKey[],
  to: bigint,
): { due: DepositKey[]; pending?: NonNullable<ChainCursor['voids']> } {
  if (!voids) return { due: [] };
  const found = new Set(reported.map((k) => JSON.stringify(identity(k))));
  const missing = voids.deposits.filter((k) => !found.has(JSON.stringify(identity(k))));
  if (to >= BigInt(voids.above)) return { due: missing };
  return { due: [], ...(missing.length ? { pending: { above: voids.above, deposits: missing } } : {}) };
}

/** A key's fields in one order, so equal identities compare equal. */
const identity = (k: DepositKey): DepositKey => ({
  transactionHash: k.transactionHash.toLowerCase(),
  account: k.account.toLowerCase(),
  token: k.token.toLowerCase(),
  sender: k.sender.toLowerCase(),
  amount: k.amount,
  occurrence: k.occurrence,
});

/** Its id is the range end's and the deposit's: read again after a retry, it is a duplicate. */
const voidEvent = (chainId: number, endHash: string, key: DepositKey): DepositVoidEvent => ({
  id: eventId(chainId, endHash, 'deposit-void', keyDigest(key)),
  type: 'deposit-void',
  chainId,
  ...identity(key),
});

/**
 * The cursor's block is no longer canonical: back to the end of the newest reported range that is. The balances the
 * abandoned ranges reported are read again once the new branch is read past the abandoned one's highest block (a
 * snapshot of a lower block than the stored one is ignored), and their deposits that the new branch has not reported
 * by then are voided (docs/chain-indexer.md, Reorgs). A reorg deeper than every range kept stops the workflow: an
 * operator restarts it from an older block.
 */
export async function rewind(
  deps: ChainIndexerDeps,
  chain: FollowedChain,
  client: PublicClient,
  cursor: ChainCursor,
): Promise<RangeRead> {
  const kept = [...cursor.recent];
  const dropped: ReportedRange[] = [];
  while (kept.length) {
    const end = kept[kept.length - 1].block;
    if ((await client.getBlock({ blockNumber: BigInt(end.number) })).hash === end.hash) break;
    dropped.unshift(kept.pop()!);
  }
  if (!kept.length && cursor.recent.length >= RECENT_RANGES)
    throw ApplicationFailure.nonRetryable(
      `chain ${chain.chainId}: a reorg abandoned every one of the last ${RECENT_RANGES} ranges reported`,
    );
  const last = kept.length ? kept[kept.length - 1].block : null;
  // Keys of ranges reported before deposits had an identity (a log index) are left out: they cannot be matched.
  const abandoned = [...(cursor.voids?.deposits ?? []), ...dropped.flatMap((r) => r.deposits)].filter((k) => k.account);
  if (abandoned.length)
    deps.log.warn({ chainId: chain.chainId, deposits: abandoned }, 'a reorg abandoned blocks with reported deposits');
  const balances = [...(cursor.resnapshot?.balances ?? []), ...dropped.flatMap((r) => r.balances)];
  const above = cursor.last!.number;
  const highest = cursor.voids && BigInt(cursor.voids.above) > BigInt(above) ? cursor.voids.above : above;
  const voids = abandoned.length ? { voids: { above: highest, deposits: unique(abandoned) } } : {};
  return {
    cursor: {
      last,
      recent: kept,
      ...(balances.length ? { resnapshot: { above, balances: unique(balances) } } : {}),
      ...voids,
    },
    events: 0,
    rewound: Number(BigInt(above) - BigInt(last?.number ?? chain.startBlock - 1)),
  };
}

const unique = <K>(keys: K[]) => [...new Map(keys.map((k) => [JSON.stringify(k), k])).values()];

/**
 * Through the ingestion domain function the route uses, in batches of the route's size: the same screening and
 * idempotency as posted events (a range read again is all duplicates). Its signals and workflow starts are performed
 * after each commit; what this process does not perform, the outbox sweeper does. A balance refused because its
 * block's timestamp contradicts a stored one (an abandoned block's, after a reorg) is sent again without it: the
 * amount is still the chain's, and a snapshot without a timestamp releases nothing at `expires`.
 */
async function ingest(deps: ChainIndexerDeps, events: IndexerEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += BATCH) {
    const batch = events.slice(i, i + BATCH);
    const refused = await ingestBatch(deps, batch);
    const untimed = refused
      .filter((r) => r.reason === 'timestamp-order')
      .map((r) => batch[r.index])
      .filter((e): e is BalanceEvent => e.type === 'balance')
      .map(({ blockTimestamp: _, ...e }) => ({ ...e, id: `${e.id}:untimed` }));
    if (untimed.length) await ingestBatch(deps, untimed);
  }
}

async function ingestBatch(
  deps: ChainIndexerDeps,
  batch: IndexerEvent[],
): Promise<{ index: number; reason: string }[]> {
  const conflict = batchConflict(batch, deps.defaultLockTag);
  if (conflict) throw ApplicationFailure.nonRetryable(conflict.message);
  const { result, signals, starts } = await ingestEvents(deps.db, batch, deps.defaultLockTag, deps);
  if (result.refused) deps.log.warn({ refused: result.refused }, 'chain indexer events refused');
  const deferred = (what: string) => (err: unknown) => deps.log.warn({ err, what }, 'deferred to the outbox sweeper');
  await Promise.all([
    deps.outbox.deliver(signals).catch(deferred('lifecycle signals')),
    ...starts.map((s) => deps.outbox.start(s).catch(deferred(s.workflowId))),
  ]);
  return result.refused ?? [];
}
