import { keccak256, toHex, type Block } from 'viem';
import { splitLockId } from '../chains/lock-tag';
import type { ChainRegistry } from '../chains/registry';
import type { IndexerEvent } from '../ingestion/types';
import type { BalanceKey, DepositKey } from '../../workflows/contracts/follow-chain';
import type { ChainLog, FillPays } from './chain-logs';

const ZERO = '0x0000000000000000000000000000000000000000';

/** An event id of its own per (chain, block hash, …): the same log read again, after a retry or a rewind, is a duplicate. */
export const eventId = (chainId: number, blockHash: string, ...parts: (string | number)[]) =>
  `chain:${chainId}:${blockHash}:${parts.join(':')}`;

export interface RangeLogs {
  chainId: number;
  logs: ChainLog[];
  /** the headers of every block with a log (their timestamps) */
  blocks: Map<bigint, Block>;
  /** the range's last block: where every balance is read */
  end: Block;
  /** the range is above the settlement depth: its balances are reported `unconfirmed` (the portfolio's alone) */
  unconfirmed?: boolean;
  /** deposit accounts (lowercase), and per account the refund recipients its deposits may be returned to */
  accounts: Set<string>;
  /** accounts whose wallet funds intents hold (lowercase): their balance is read when they send tokens */
  spenders: Set<string>;
  refundRecipients: Map<string, Set<string>>;
  registry: ChainRegistry;
  /** balances to report again (after a rewind) */
  resnapshot: BalanceKey[];
  /** the mandate's recipient of a fill's nonce (lowercase), for fill events that do not declare whom they paid */
  recipientOf(nonce: bigint): string | undefined;
  /** the balances at `block`, in the order of `keys`: balanceOf(account, lockId) of The Compact, or of an ERC-20 */
  balancesOf(keys: BalanceKey[], block: bigint): Promise<bigint[]>;
}

/**
 * What the service ingests for a range's logs (docs/chain-indexer.md, What each log becomes). The balance of every
 * (account, lock or token) a log touched is read once, at the range's last block: a snapshot is monotonic by block
 * number, so the end's state is the one the service keeps, and a range of thousands of logs of a few accounts costs a
 * few reads. Tokens the registry does not list have no balance the service could use and are not reported (a deposit
 * of one still is: it is rejected with TOKEN-1). The balances come first, so a deposit's funds are there when its
 * workflow starts. Also returns what a reorg abandoning the range would make wrong: the balance keys and deposits
 * reported.
 */
export async function toEvents(
  r: RangeLogs,
): Promise<{ events: IndexerEvent[]; balances: BalanceKey[]; deposits: DepositKey[] }> {
  const events: IndexerEvent[] = [];
  const balances = new Map<string, BalanceKey>();
  const deposits: DepositKey[] = [];
  const snapshot = (key: BalanceKey) => {
    if (r.registry.token(r.chainId, tokenOf(key))) balances.set(JSON.stringify(key), key);
  };
  const fills = fillsByTransaction(r.logs);
  const paid = fillsPaid([...fills.values()].flat(), r.recipientOf);
  // A fill that declares its amount pays one transfer: once taken for an arrival, it is not taken again.
  const taken = new Set<FillLog>();
  // Identical transfers of one transaction, numbered in log order: what tells them apart wherever a reorg puts them.
  const seen = new Map<string, number>();

  for (const l of r.logs) {
    const block = r.blocks.get(l.blockNumber)!;
    const id = (...parts: (string | number)[]) =>
      eventId(r.chainId, l.blockHash, l.transactionHash, l.logIndex, ...parts);
    const timestamp = Number(block.timestamp);
    switch (l.kind) {
      case 'lock-transfer':
        for (const account of [l.from, l.to])
          if (account !== ZERO) snapshot({ account: account.toLowerCase(), lockId: l.id.toString() });
        break;
      case 'claim':
        events.push({
          // A Permit2 claim is found at a transfer, which may claim several nonces of its sponsor.
          id: l.permit2 ? id('permit2', l.nonce.toString()) : id(),
          type: 'claim',
          chainId: r.chainId,
          nonce: l.nonce.toString(),
          transactionHash: l.transactionHash,
          timestamp,
          blockNumber: l.blockNumber.toString(),
        });
        break;
      case 'fill': {
        // One event per transaction, nonce and recipient, at its first log: what it paid is checked by the service.
        const pays = paid.get(l);
        if (pays)
          events.push({
            id: id(),
            type: 'fill',
            chainId: r.chainId,
            nonce: l.nonce.toString(),
            transactionHash: l.transactionHash,
            timestamp,
            ...pays,
          });
        break;
      }
      case 'forced-withdrawal':
        events.push({
          id: id(),
          type: 'forced-withdrawal',
          chainId: r.chainId,
          account: l.account.toLowerCase(),
          lockId: l.id.toString(),
          // The Compact's status: pending until withdrawableAt, enabled from then on.
          status: !l.activating ? 'disabled' : l.withdrawableAt <= block.timestamp ? 'enabled' : 'pending',
          blockNumber: l.blockNumber.toString(),
        });
        break;
      case 'token-transfer': {
        const from = l.from.toLowerCase();
        const to = l.to.toLowerCase();
        const token = l.token.toLowerCase();
        const place = { chainId: r.chainId, transactionHash: l.transactionHash, token, amount: l.value.toString() };
        if (r.accounts.has(to) && l.value > 0n) {
          const fill = fillPaying(
            (fills.get(l.transactionHash) ?? []).filter((f) => !taken.has(f)),
            { to, token, value: l.value, logIndex: l.logIndex },
          );
          if (fill?.amount !== undefined) taken.add(fill);
          const identity = {
            transactionHash: l.transactionHash,
            account: to,
            token,
            sender: from,
            amount: l.value.toString(),
          };
          const occurrence = seen.get(JSON.stringify(identity)) ?? 0;
          seen.set(JSON.stringify(identity), occurrence + 1);
          events.push({
            id: id('deposit'),
            type: 'deposit',
            ...place,
            logIndex: l.logIndex,
            sender: from,
            account: to,
            blockNumber: l.blockNumber.toString(),
            ...(fill ? { fillNonce: fill.nonce.toString() } : {}),
            occurrence,
          });
          deposits.push({ ...identity, occurrence });
        }
        if (r.accounts.has(from) && r.refundRecipients.get(from)?.has(to))
          events.push({
            id: id('refund'),
            type: 'deposit-refund',
            ...place,
            account: from,
            recipient: to,
            blockNumber: l.blockNumber.toString(),
          });
        for (const account of [from, to]) if (r.accounts.has(account)) snapshot({ account, token });
        if (r.spenders.has(from)) snapshot({ account: from, token });
        break;
      }
    }
  }
  for (const key of r.resnapshot) snapshot(key);
  const keys = [...balances.values()];
  const amounts = keys.length ? await r.balancesOf(keys, r.end.number!) : [];
  const read = keys.map((key, i): IndexerEvent => {
    const base = {
      id: eventId(r.chainId, r.end.hash!, r.unconfirmed ? 'unconfirmed-balance' : 'balance', keyDigest(key)),
      type: 'balance' as const,
      chainId: r.chainId,
      account: key.account,
      token: tokenOf(key),
      blockNumber: r.end.number!.toString(),
      // A block a reorg may undo releases nothing at `expires` and funds nothing: the portfolio shows it.
      ...(r.unconfirmed ? { unconfirmed: true } : { blockTimestamp: Number(r.end.timestamp) }),
    };
    return 'lockId' in key
      ? { ...base, locked: amounts[i].toString(), lockTag: splitLockId(key.lockId).lockTag }
      : { ...base, unlocked: amounts[i].toString() };
  });
  return { events: [...read, ...events], balances: keys, deposits };
}

type FillLog = Extract<ChainLog, { kind: 'fill' }>;

function fillsByTransaction(logs: ChainLog[]): Map<string, FillLog[]> {
  const out = new Map<string, FillLog[]>();
  for (const l of logs) if (l.kind === 'fill') out.set(l.transactionHash, [...(out.get(l.transactionHash) ?? []), l]);
  return out;
}

/**
 * What each transaction's fills of a nonce paid a recipient, keyed by the first of their logs (the others map to
 * nothing): the amounts their events declare (recipient, token and amount), summed per token, or, where an event does
 * not declare all three, the transaction's ERC-20 transfers to the declared recipient, else to the mandate's, counted
 * for one nonce only. A fill whose recipient is not
 * known (its nonce was never quoted here) is reported as it is, for the service to place.
 */
function fillsPaid(
  fills: FillLog[],
  recipientOf: (nonce: bigint) => string | undefined,
): Map<FillLog, { recipient?: string; tokens?: { token: string; amount: string }[] }> {
  const groups = new Map<string, { first: FillLog; recipient?: string; paid: Map<string, bigint> }>();
  const out = new Map<FillLog, { recipient?: string; tokens?: { token: string; amount: string }[] }>();
  // A transaction's transfers to a recipient pay one nonce: the first whose fill event does not declare its payment.
  const spent = new Set<string>();
  for (const f of fills) {
    const recipient = f.recipient ?? recipientOf(f.nonce);
    const key = `${f.transactionHash}:${f.nonce}:${recipient}`;
    const group = groups.get(key);
    if (!group) groups.set(key, { first: f, recipient, paid: new Map() });
    const { paid } = groups.get(key)!;
    const add = (token: string, amount: bigint) => paid.set(token, (paid.get(token) ?? 0n) + amount);
    if (f.recipient !== undefined && f.token !== undefined && f.amount !== undefined) add(f.token, f.amount);
    else if (recipient && !spent.has(`${f.transactionHash}:${recipient}`)) {
      spent.add(`${f.transactionHash}:${recipient}`);
      for (const t of f.transfers ?? []) if (t.to === recipient) add(t.token, t.value);
    }
  }
  for (const { first, recipient, paid } of groups.values())
    out.set(
      first,
      recipient
        ? { recipient, tokens: [...paid].map(([token, amount]) => ({ token, amount: amount.toString() })) }
        : {},
    );
  return out;
}

/**
 * The fill of a transfer's transaction that paid it: one whose event does not contradict the transfer (its recipient,
 * token and amount, where the fill event declares them); of several, the first after the transfer (a filler emits
 * its fill once it has paid, as solidity/Filler.sol does), else the last before it. The service decides whether
 * that fill's intent is one that moves the account's own funds (src/deposits/ingest.ts).
 */
function fillPaying(
  fills: FillLog[],
  t: { to: string; token: string; value: bigint; logIndex: number },
): FillLog | undefined {
  const pays = (f: FillPays) =>
    (f.recipient ?? t.to) === t.to && (f.token ?? t.token) === t.token && (f.amount ?? t.value) === t.value;
  const paying = fills.filter(pays);
  return paying.find((f) => f.logIndex > t.logIndex) ?? paying.filter((f) => f.logIndex < t.logIndex).pop();
}

const tokenOf = (key: BalanceKey) => ('lockId' in key ? splitLockId(key.lockId).token : key.token);

/** A short digest of a balance key, for the ids of its snapshots. */
export const keyDigest = (key: BalanceKey | DepositKey) => keccak256(toHex(JSON.stringify(key))).slice(2, 18);
