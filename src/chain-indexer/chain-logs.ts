import { parseAbiItem, parseEventLogs, type AbiEvent, type PublicClient } from 'viem';
import { COMPACT_EVENTS, ERC20_TRANSFER, PERMIT2_NONCES } from './abi';
import type { FollowedChain } from './config';
import { eventLogs, type EventLog } from './get-logs';

/** Where a log is: what its event id and its block's checks are made of. */
export interface LogPlace {
  blockNumber: bigint;
  blockHash: `0x${string}`;
  transactionHash: `0x${string}`;
  logIndex: number;
}

/** The logs the indexer reports, decoded. */
export type ChainLog = LogPlace &
  (
    | { kind: 'lock-transfer'; from: string; to: string; id: bigint }
    | { kind: 'claim'; nonce: bigint; permit2?: true }
    | { kind: 'forced-withdrawal'; account: string; id: bigint; activating: boolean; withdrawableAt: bigint }
    | ({ kind: 'fill'; nonce: bigint } & FillPays)
    | { kind: 'token-transfer'; token: string; from: string; to: string; value: bigint }
    | { kind: 'nonce-invalidation'; owner: string; word: bigint; mask: bigint }
  );

/**
 * What a fill event says it paid, where its declaration has these arguments (the default fill event has all three);
 * where it lacks one, `transfers`: the ERC-20 transfers of its transaction, from which what it paid is read.
 */
export interface FillPays {
  recipient?: string;
  token?: string;
  amount?: bigint;
  transfers?: TokenMove[];
}
/** An ERC-20 transfer's receiving side (addresses lowercase). */
export interface TokenMove {
  to: string;
  token: string;
  value: bigint;
}

/** Addresses per eth_getLogs topic filter: providers cap a request's size. */
const TOPIC_CHUNK = 500;

/** The Compact's ERC-6909 Transfers: the `balances` stream. */
export async function balanceLogs(client: PublicClient, chain: FollowedChain, from: bigint, to: bigint) {
  const transfers = await eventLogs(client, { address: chain.compact, events: [COMPACT_EVENTS[0]] }, from, to);
  return inChainOrder(
    transfers.map((l): ChainLog => {
      const { from, to, id } = l.args as { from: string; to: string; id: bigint };
      return { ...placeOf(l), kind: 'lock-transfer', from, to, id };
    }),
  );
}

/**
 * The `settlements` stream: The Compact's Claim (of this allocator's nonces) and ForcedWithdrawalStatusUpdated, the
 * configured fills, ERC-20 transfers (of any token) into and out of the deposit accounts `accounts`, and out of the
 * `spenders` (accounts whose wallet funds intents hold: a Permit2 claim is a transfer out of its sponsor) with the
 * Permit2 nonces they cancelled.
 */
export async function settlementLogs(
  client: PublicClient,
  chain: FollowedChain,
  allocator: string,
  watched: { accounts: string[]; spenders: string[] },
  from: bigint,
  to: bigint,
): Promise<ChainLog[]> {
  const { accounts } = watched;
  const deposits = new Set(accounts);
  const spenders = watched.spenders.filter((s) => !deposits.has(s));
  const fillEvent = chain.filler ? (parseAbiItem(chain.fillEvent) as AbiEvent) : undefined;
  const compact = chain.compact.toLowerCase();
  const filler = chain.filler?.toLowerCase();
  // Every request at once: the transport sends them to the node together. The Compact's and the filler's events
  // are one request, one pass of the node over the range.
  const [contracts, transfers, cancelled] = await Promise.all([
    eventLogs(
      client,
      {
        address: chain.filler ? [chain.compact, chain.filler] : chain.compact,
        events: [COMPACT_EVENTS[1], COMPACT_EVENTS[2], ...(fillEvent ? [fillEvent] : [])],
      },
      from,
      to,
    ),
    Promise.all(
      [
        ...chunks(accounts).flatMap((chunk) => [{ to: chunk }, { from: chunk }]),
        ...chunks(spenders).map((chunk) => ({ from: chunk })),
      ].map((args) => eventLogs(client, { events: [ERC20_TRANSFER], args }, from, to)),
    ),
    // Permit2 nonces a spender cancelled: spent, but by no claim.
    Promise.all(
      chunks(watched.spenders).map((owner) =>
        eventLogs(client, { address: chain.permit2, events: [PERMIT2_NONCES[1]], args: { owner } }, from, to),
      ),
    ),
  ]);
  const out: ChainLog[] = [];
  const fills: EventLog[] = [];
  for (const l of contracts) {
    if (l.address === filler && l.eventName === fillEvent!.name) fills.push(l);
    else if (l.address !== compact) continue;
    else if (l.eventName === 'Claim') {
      const { allocator: by, nonce } = l.args as { allocator: string; nonce: bigint };
      if (by === allocator.toLowerCase()) out.push({ ...placeOf(l), kind: 'claim', nonce });
    } else if (l.eventName === 'ForcedWithdrawalStatusUpdated') {
      const args = l.args as { account: string; id: bigint; activating: boolean; withdrawableAt: bigint };
      out.push({ ...placeOf(l), kind: 'forced-withdrawal', ...args });
    }
  }
  const declared = fills.map((l) => {
    const { nonce, ...args } = l.args as { nonce: bigint } & Record<string, unknown>;
    return { ...placeOf(l), kind: 'fill' as const, nonce, ...fillPays(args) };
  });
  const undeclared = [
    ...new Set(
      declared
        .filter((f) => f.recipient === undefined || f.token === undefined || f.amount === undefined)
        .map((f) => f.transactionHash),
    ),
  ];
  const moves = new Map(
    await Promise.all(undeclared.map(async (hash) => [hash, await transfersOf(client, hash)] as const)),
  );
  for (const f of declared)
    out.push(moves.has(f.transactionHash) ? { ...f, transfers: moves.get(f.transactionHash) } : f);
  for (const l of cancelled.flat()) {
    const { owner, word, mask } = l.args as { owner: string; word: bigint; mask: bigint };
    out.push({ ...placeOf(l), kind: 'nonce-invalidation', owner, word, mask });
  }
  // A transfer between two watched accounts is found by both filters: once is enough.
  const seen = new Set<string>();
  const once = transfers
    .flat()
    .filter((l) => !seen.has(`${l.blockHash}:${l.logIndex}`) && seen.add(`${l.blockHash}:${l.logIndex}`))
    .map((l): ChainLog => {
      const { from, to, value } = l.args as { from: string; to: string; value: bigint };
      return { ...placeOf(l), kind: 'token-transfer', token: l.address, from, to, value };
    });
  return inChainOrder([...out, ...once]);
}

function chunks(addresses: string[]): `0x${string}`[][] {
  const out: `0x${string}`[][] = [];
  for (let i = 0; i < addresses.length; i += TOPIC_CHUNK)
    out.push(addresses.slice(i, i + TOPIC_CHUNK) as `0x${string}`[]);
  return out;
}

/** The recipient, token and amount of a configured fill event, those it declares with the types they must have. */
function fillPays(args: Record<string, unknown>): FillPays {
  const { recipient, token, amount } = args;
  return {
    ...(typeof recipient === 'string' ? { recipient: recipient.toLowerCase() } : {}),
    ...(typeof token === 'string' ? { token: token.toLowerCase() } : {}),
    ...(typeof amount === 'bigint' ? { amount } : {}),
  };
}

/** The ERC-20 transfers of a transaction, from its receipt. */
async function transfersOf(client: PublicClient, hash: `0x${string}`): Promise<TokenMove[]> {
  const { logs } = await client.getTransactionReceipt({ hash });
  return parseEventLogs({ abi: [ERC20_TRANSFER], logs, strict: true }).map((l) => ({
    to: l.args.to.toLowerCase(),
    token: l.address.toLowerCase(),
    value: l.args.value,
  }));
}

export const inChainOrder = (logs: ChainLog[]) =>
  logs.sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  );

function placeOf(l: {
  blockNumber: bigint | null;
  blockHash: `0x${string}` | null;
  transactionHash: `0x${string}` | null;
  logIndex: number | null;
}): LogPlace {
  return {
    blockNumber: l.blockNumber!,
    blockHash: l.blockHash!,
    transactionHash: l.transactionHash!,
    logIndex: l.logIndex!,
  };
}
