import { keccak256, toHex, type Block } from 'viem';
import { splitLockId } from '../chains/lock-tag';
import type { ChainRegistry } from '../chains/registry';
import type { IndexerEvent } from '../indexer/types';
import type { BalanceKey, DepositKey } from '../../workflows/contracts/follow-chain';
import type { ChainLog } from './chain-logs';

/** A balance to read at a block: balanceOf(account, lockId) of The Compact, or balanceOf(account) of an ERC-20. */
export type BalanceRead = BalanceKey & { block: bigint };

const ZERO = '0x0000000000000000000000000000000000000000';

/** An event id of its own per (chain, block hash, …): the same log read again, after a retry or a rewind, is a duplicate. */
export const eventId = (chainId: number, blockHash: string, ...parts: (string | number)[]) =>
  `chain:${chainId}:${blockHash}:${parts.join(':')}`;

export interface RangeLogs {
  chainId: number;
  logs: ChainLog[];
  /** the headers of every block with a log (their timestamps) */
  blocks: Map<bigint, Block>;
  /** deposit accounts (lowercase), and per account the refund recipients its deposits may be returned to */
  accounts: Set<string>;
  refundRecipients: Map<string, Set<string>>;
  registry: ChainRegistry;
  /** balances to report again at `block` (after a rewind) */
  resnapshot: { block: Block; balances: BalanceKey[] };
  balanceOf(read: BalanceRead): Promise<bigint>;
}

/**
 * What the service ingests for a range's logs (docs/chain-indexer.md, What each log becomes). Balances are read at
 * the log's block (the state at its end), once per key and block; tokens the registry does not list have no balance
 * the service could use and are not reported (a deposit of one still is: it is rejected with TOKEN-1). Also returns
 * what a reorg abandoning the range would make wrong: the balance keys and deposits reported.
 */
export async function toEvents(
  r: RangeLogs,
): Promise<{ events: IndexerEvent[]; balances: BalanceKey[]; deposits: DepositKey[] }> {
  const slots: (IndexerEvent | Promise<IndexerEvent>)[] = [];
  const balances = new Map<string, BalanceKey>();
  const deposits: DepositKey[] = [];
  const snapshotted = new Set<string>();
  const snapshot = (key: BalanceKey, block: Block, id: string) => {
    const token = 'lockId' in key ? splitLockId(key.lockId).token : key.token;
    if (!r.registry.token(r.chainId, token)) return;
    const seen = `${JSON.stringify(key)}:${block.number}`;
    if (snapshotted.has(seen)) return;
    snapshotted.add(seen);
    balances.set(JSON.stringify(key), key);
    slots.push(
      r.balanceOf({ ...key, block: block.number! }).then((amount): IndexerEvent => {
        const base = {
          id,
          type: 'balance' as const,
          chainId: r.chainId,
          account: key.account,
          token,
          blockNumber: block.number!.toString(),
          blockTimestamp: Number(block.timestamp),
        };
        return 'lockId' in key
          ? { ...base, locked: amount.toString(), lockTag: splitLockId(key.lockId).lockTag }
          : { ...base, unlocked: amount.toString() };
      }),
    );
  };

  for (const l of r.logs) {
    const block = r.blocks.get(l.blockNumber)!;
    const id = (...parts: (string | number)[]) =>
      eventId(r.chainId, l.blockHash, l.transactionHash, l.logIndex, ...parts);
    const timestamp = Number(block.timestamp);
    switch (l.kind) {
      case 'lock-transfer':
        for (const [side, account] of [
          ['from', l.from],
          ['to', l.to],
        ] as const)
          if (account !== ZERO) snapshot({ account: account.toLowerCase(), lockId: l.id.toString() }, block, id(side));
        break;
      case 'claim':
      case 'fill':
        slots.push({
          id: id(),
          type: l.kind,
          chainId: r.chainId,
          nonce: l.nonce.toString(),
          transactionHash: l.transactionHash,
          timestamp,
          ...(l.kind === 'claim' ? { blockNumber: l.blockNumber.toString() } : {}),
        });
        break;
      case 'forced-withdrawal':
        slots.push({
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
          slots.push({
            id: id('deposit'),
            type: 'deposit',
            ...place,
            logIndex: l.logIndex,
            sender: from,
            account: to,
            blockNumber: l.blockNumber.toString(),
          });
          deposits.push({ transactionHash: l.transactionHash, logIndex: l.logIndex, blockHash: l.blockHash });
        }
        if (r.accounts.has(from) && r.refundRecipients.get(from)?.has(to))
          slots.push({
            id: id('refund'),
            type: 'deposit-refund',
            ...place,
            account: from,
            recipient: to,
            blockNumber: l.blockNumber.toString(),
          });
        for (const [side, account] of [
          ['from', from],
          ['to', to],
        ] as const)
          if (r.accounts.has(account)) snapshot({ account, token }, block, id(side));
        break;
      }
    }
  }
  for (const key of r.resnapshot.balances)
    snapshot(key, r.resnapshot.block, eventId(r.chainId, r.resnapshot.block.hash!, 'resnapshot', keyDigest(key)));
  return {
    events: await Promise.all(slots.map((s) => Promise.resolve(s))),
    balances: [...balances.values()],
    deposits,
  };
}

/** A short digest of a balance key, for the ids of snapshots read again after a rewind. */
const keyDigest = (key: BalanceKey) => keccak256(toHex(JSON.stringify(key))).slice(2, 18);
