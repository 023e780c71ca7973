import fs from 'node:fs';
import {
  encodeAbiParameters,
  encodeEventTopics,
  parseAbiItem,
  parseEventLogs,
  type Block,
  type Hex,
  type PublicClient,
} from 'viem';
import { loadChainRegistry } from '../../src/chains/registry';
import type { ChainLog } from '../../src/chain-indexer/chain-logs';
import { chainIndexerConfig } from '../../src/chain-indexer/config';
import { eventLogs, logsInRange } from '../../src/chain-indexer/get-logs';
import { COMPACT_EVENTS, ERC20_TRANSFER } from '../../src/chain-indexer/abi';
import { DEFAULT_FILL_EVENT } from '../../src/chain-indexer/config';
import { permit2Claims } from '../../src/chain-indexer/permit2-claims';
import { rewind, stillMissing } from '../../src/chain-indexer/read-range';
import { toEvents } from '../../src/chain-indexer/to-events';
import type { DepositKey } from '../../workflows/contracts/follow-chain';
import type { LifecycleEvent } from '../../src/ingestion/types';
import { ARTIFACTS_FILE, compileContracts } from '../../src/dev/build-contracts';

const registry = loadChainRegistry();
const BASE_USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const LOCK_TAG = '0x60010c7d01b50e0d17dc79c8';
const lockId = (token: string) => BigInt(`${LOCK_TAG}${token.slice(2)}`);
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as `0x${string}`;
const block = (n: number, timestamp: number) =>
  ({ number: BigInt(n), hash: hash(1000 + n), timestamp: BigInt(timestamp) }) as Block;
const at = (n: number, logIndex = 0) => ({
  blockNumber: BigInt(n),
  blockHash: hash(1000 + n),
  transactionHash: hash(2000 + n),
  logIndex,
});

describe('eth_getLogs ranges', () => {
  test('a range the provider refuses as too large is halved until it passes; other errors are thrown', async () => {
    const asked: [bigint, bigint][] = [];
    const read = async (from: bigint, to: bigint) => {
      asked.push([from, to]);
      if (to - from >= 4n) throw new Error('query returned more than 10000 results');
      return [{ from, to }] as never[];
    };
    const logs = await logsInRange(0n, 9n, read);
    expect(logs).toEqual([
      { from: 0n, to: 2n },
      { from: 3n, to: 4n },
      { from: 5n, to: 7n },
      { from: 8n, to: 9n },
    ]);
    expect(asked[0]).toEqual([0n, 9n]);
    await expect(
      logsInRange(0n, 9n, async () => {
        throw new Error('connection refused');
      }),
    ).rejects.toThrow('connection refused');
    // A single block too large for the provider cannot be split: thrown, never skipped.
    await expect(
      logsInRange(5n, 5n, async () => {
        throw new Error('log response size exceeded');
      }),
    ).rejects.toThrow('exceeded');
  });
  test("logs are decoded as viem's strict getLogs decodes them: a log whose topics or data do not fit is left out", async () => {
    const a = '0x00000000000000000000000000000000000000aa';
    const b = '0x00000000000000000000000000000000000000bb';
    const fill = parseAbiItem(DEFAULT_FILL_EVENT);
    const word = (v: bigint) => encodeAbiParameters([{ type: 'uint256' }], [v]);
    const log = (i: number, topics: Hex[], data: Hex) => ({
      address: '0x00000000000000000000000000000000000000Cc' as Hex,
      blockNumber: '0x7',
      blockHash: hash(7),
      transactionHash: hash(70 + i),
      transactionIndex: '0x0',
      logIndex: `0x${i.toString(16)}`,
      removed: false,
      topics,
      data,
    });
    const transfer = encodeEventTopics({ abi: [ERC20_TRANSFER], args: { from: a, to: b } }) as Hex[];
    const logs = [
      log(0, transfer, word(5n)),
      // An ERC-721 Transfer: the same signature, its token id a topic and no data.
      log(1, [...transfer, word(9n)], '0x'),
      log(2, transfer, '0x01'),
      log(3, transfer.slice(0, 2), word(5n)),
      log(
        4,
        encodeEventTopics({ abi: [COMPACT_EVENTS[0]], args: { from: a, to: b, id: 3n } }) as Hex[],
        encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [a, 4n]),
      ),
      log(
        5,
        encodeEventTopics({ abi: [fill], args: { nonce: 8n, recipient: b } }) as Hex[],
        encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [a, 6n]),
      ),
    ];
    const asked: unknown[] = [];
    const client = {
      request: async ({ params }: { params: unknown[] }) => {
        asked.push(params[0]);
        return logs;
      },
    } as unknown as PublicClient;
    const events = [ERC20_TRANSFER, COMPACT_EVENTS[0], fill];
    const ours = await eventLogs(client, { events }, 7n, 8n);
    const viems = parseEventLogs({ abi: events, logs: logs as never, strict: true });
    const lower = (args: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? v.toLowerCase() : v]));
    expect(ours.map((l) => [l.logIndex, l.eventName, l.args])).toEqual(
      viems.map((l) => [l.logIndex, l.eventName, lower(l.args as Record<string, unknown>)]),
    );
    expect(ours.map((l) => l.logIndex)).toEqual([0, 4, 5]);
    expect(asked[0]).toMatchObject({ fromBlock: '0x7', toBlock: '0x8' });
    // Filtered by an indexed argument: the topics viem encodes for it.
    await eventLogs(client, { events: [ERC20_TRANSFER], args: { to: [a, b] } }, 7n, 7n);
    expect((asked[1] as { topics: unknown[] }).topics).toEqual(
      encodeEventTopics({ abi: [ERC20_TRANSFER], args: { to: [a, b] } }),
    );
  });
});

describe('settings', () => {
  const env = { INDEXER_CHAINS: '8453, 42161', RPC_URL_8453: 'http://a', RPC_URL_42161: 'http://b' };
  test('each chain needs its RPC; the rest defaults; settlements are never reported at depth 0', () => {
    expect(chainIndexerConfig({}).chains).toEqual([]);
    const config = chainIndexerConfig({ ...env, INDEXER_CONFIRMATIONS_42161: '0', INDEXER_START_BLOCK_8453: '77' });
    expect(config.pollMs).toBe(2000);
    expect(config.chains.map((c) => [c.chainId, c.startBlock, c.confirmations, c.settlementConfirmations])).toEqual([
      [8453, 77, 12, 12],
      [42161, 0, 0, 12],
    ]);
    expect(
      chainIndexerConfig({ ...env, INDEXER_CONFIRMATIONS_8453: '20', INDEXER_SETTLEMENT_CONFIRMATIONS_8453: '3' })
        .chains[0].settlementConfirmations,
    ).toBe(20);
    expect(() => chainIndexerConfig({ ...env, INDEXER_SETTLEMENT_CONFIRMATIONS_8453: '0' })).toThrow(/between 1/);
    expect(() => chainIndexerConfig({ INDEXER_CHAINS: '8453' })).toThrow(/RPC_URL_8453/);
    expect(() => chainIndexerConfig({ ...env, INDEXER_FILL_EVENT_8453: 'event Filled(uint256 id)' })).toThrow(
      /uint256 nonce/,
    );
  });
});

describe('what each log becomes', () => {
  const account = '0x00000000000000000000000000000000000000aa';
  const other = '0x00000000000000000000000000000000000000bb';
  const refundTo = '0x00000000000000000000000000000000000000cc';
  const unlisted = '0x1111111111111111111111111111111111111111';
  const sponsor = '0x00000000000000000000000000000000000000dd';
  const blocks = new Map([1, 2, 3, 4].map((n) => [BigInt(n), block(n, 1_700_000_000 + n)]));
  const read = (logs: ChainLog[], resnapshot: { account: string; lockId: string }[] = [], unconfirmed = false) => {
    const reads: unknown[] = [];
    return toEvents({
      unconfirmed,
      chainId: 8453,
      logs,
      blocks,
      accounts: new Set([account]),
      spenders: new Set([sponsor]),
      refundRecipients: new Map([[account, new Set([refundTo])]]),
      registry,
      end: block(3, 1_700_000_003),
      resnapshot,
      recipientOf: (nonce) => (nonce === 30n || nonce === 31n ? account : undefined),
      balancesOf: async (keys, at) => {
        reads.push(...keys.map((key) => ({ ...key, block: at })));
        return keys.map(() => 42n);
      },
    }).then((out) => ({ ...out, reads }));
  };

  test("lock transfers become balances read at the range's end, once per key, registry tokens only", async () => {
    const id = lockId(BASE_USDC);
    const { events, reads, balances } = await read([
      { ...at(1), kind: 'lock-transfer', from: '0x0000000000000000000000000000000000000000', to: account, id },
      { ...at(1, 1), kind: 'lock-transfer', from: account, to: other, id },
      { ...at(2), kind: 'lock-transfer', from: account, to: other, id: lockId(unlisted) },
      { ...at(2, 1), kind: 'lock-transfer', from: other, to: account, id },
    ]);
    expect(reads).toEqual([
      { account, lockId: id.toString(), block: 3n },
      { account: other, lockId: id.toString(), block: 3n },
    ]);
    expect(events[0]).toEqual({
      id: expect.stringMatching(new RegExp(`^chain:8453:${hash(1003)}:balance:[0-9a-f]{16}$`)),
      type: 'balance',
      chainId: 8453,
      account,
      token: BASE_USDC,
      locked: '42',
      lockTag: LOCK_TAG,
      blockNumber: '3',
      blockTimestamp: 1_700_000_003,
    });
    expect(events[1].id).not.toBe(events[0].id);
    expect(balances).toHaveLength(2);
  });

  test('claims, fills and forced-withdrawal statuses', async () => {
    const { events } = await read([
      { ...at(1), kind: 'claim', nonce: 7n },
      { ...at(2), kind: 'fill', nonce: 8n },
      {
        ...at(2, 1),
        kind: 'forced-withdrawal',
        account,
        id: 5n,
        activating: true,
        withdrawableAt: 1_700_000_002n,
      },
      { ...at(3), kind: 'forced-withdrawal', account, id: 5n, activating: true, withdrawableAt: 1_800_000_000n },
      { ...at(3, 1), kind: 'forced-withdrawal', account, id: 5n, activating: false, withdrawableAt: 0n },
    ]);
    expect(events.map((e) => [e.type, 'nonce' in e ? e.nonce : 'status' in e ? e.status : undefined])).toEqual([
      ['claim', '7'],
      ['fill', '8'],
      ['forced-withdrawal', 'enabled'],
      ['forced-withdrawal', 'pending'],
      ['forced-withdrawal', 'disabled'],
    ]);
    expect(events[0]).toMatchObject({ transactionHash: hash(2001), timestamp: 1_700_000_001, blockNumber: '1' });
    expect(events[1]).not.toHaveProperty('blockNumber');
  });

  test('transfers into a deposit account are deposits (any token); out of one to a refund recipient, refunds', async () => {
    const { events, deposits } = await read([
      { ...at(1), kind: 'token-transfer', token: unlisted, from: other, to: account, value: 5n },
      { ...at(2), kind: 'token-transfer', token: BASE_USDC, from: account, to: refundTo, value: 5n },
      { ...at(3), kind: 'token-transfer', token: BASE_USDC, from: account, to: other, value: 1n },
    ]);
    // One balance of the account's listed token, first: its funds are there when the deposit's workflow starts.
    expect(events.map((e) => e.type)).toEqual(['balance', 'deposit', 'deposit-refund']);
    expect(events[0]).toMatchObject({ account, token: BASE_USDC, unlocked: '42', blockNumber: '3' });
    expect(events[1]).toMatchObject({ token: unlisted, amount: '5', sender: other, account, logIndex: 0 });
    expect(events[2]).toMatchObject({ account, recipient: refundTo, amount: '5' });
    expect(deposits).toEqual([
      { transactionHash: hash(2001), account, token: unlisted, sender: other, amount: '5', occurrence: 0 },
    ]);
  });

  test('a deposit is its transfer, not its log: identical transfers of one transaction are numbered in log order', async () => {
    const same = { kind: 'token-transfer' as const, token: BASE_USDC, from: other, to: account, value: 5n };
    const { events, deposits } = await read([
      { ...at(1, 3), ...same },
      { ...at(1, 7), ...same, value: 6n },
      { ...at(1, 9), ...same },
    ]);
    const numbered = events.filter((e) => e.type === 'deposit').map((e) => [e.amount, e.occurrence]);
    expect(numbered).toEqual([
      ['5', 0],
      ['6', 0],
      ['5', 1],
    ]);
    expect(deposits.map((d) => [d.amount, d.occurrence])).toEqual(numbered);
  });

  test('a transfer into a deposit account names the fill of its transaction that paid it (the service judges it)', async () => {
    const tx = (logIndex: number) => ({ ...at(2, logIndex), transactionHash: hash(77) });
    const into = (logIndex: number, value: bigint, token = BASE_USDC) =>
      ({ ...tx(logIndex), kind: 'token-transfer', token, from: other, to: account, value }) as const;
    const { events } = await read([
      // Another transaction's fill pays nobody here.
      {
        ...at(1),
        transactionHash: hash(88),
        kind: 'fill',
        nonce: 1n,
        recipient: account,
        token: BASE_USDC,
        amount: 5n,
      },
      { ...into(1, 5n), ...at(1, 1) },
      // One transaction, two fills paying the account as solidity/Filler.sol does (the transfer, then its fill),
      // a fill of another recipient, and a fill whose event declares nothing but its nonce.
      into(0, 5n),
      { ...tx(1), kind: 'fill', nonce: 10n, recipient: account, token: BASE_USDC, amount: 5n },
      into(2, 5n),
      { ...tx(3), kind: 'fill', nonce: 11n, recipient: account, token: BASE_USDC, amount: 5n },
      { ...tx(4), kind: 'fill', nonce: 12n, recipient: other, token: BASE_USDC, amount: 7n },
      into(5, 7n),
      into(6, 9n, unlisted),
      { ...tx(7), kind: 'fill', nonce: 13n },
    ]);
    const deposits = events.filter((e) => e.type === 'deposit');
    expect(deposits.map((e) => [e.logIndex, e.fillNonce])).toEqual([
      [1, undefined],
      [0, '10'],
      [2, '11'],
      // Paid neither by fill 12 (another recipient) nor by 10 or 11 (another amount); 13 declares nothing to contradict.
      [5, '13'],
      [6, '13'],
    ]);
    expect(deposits[0]).not.toHaveProperty('fillNonce');
  });

  test('a fill proves payment: what a transaction paid for a nonce is one fill event, checked by the service', async () => {
    const tx = (logIndex: number, n = 77) => ({ ...at(2, logIndex), transactionHash: hash(n) });
    const unlistedPays = { recipient: account, token: unlisted, amount: 4n };
    const { events } = await read([
      // solidity/Filler.sol's fillTokenOut: one Filled per token, added up per token and recipient.
      { ...tx(0), kind: 'fill', nonce: 20n, recipient: account, token: BASE_USDC, amount: 3n },
      { ...tx(1), kind: 'fill', nonce: 20n, recipient: account, token: BASE_USDC, amount: 2n },
      { ...tx(2), kind: 'fill', nonce: 20n, ...unlistedPays },
      // The same nonce paying someone else in that transaction is a fill of its own (refused unless it pays the mandate).
      { ...tx(3), kind: 'fill', nonce: 20n, recipient: other, token: BASE_USDC, amount: 1n },
      // A fill event declaring only its nonce: the transaction's transfers to the mandate's recipient, counted once.
      ...[4, 5].map((i) => ({
        ...tx(i, 78),
        kind: 'fill' as const,
        nonce: 30n,
        transfers: [
          { to: account, token: BASE_USDC, value: 6n },
          { to: other, token: BASE_USDC, value: 9n },
        ],
      })),
      // Another nonce paying the same recipient in that transaction: the transfers paid the first one only.
      { ...tx(6, 78), kind: 'fill', nonce: 31n, transfers: [{ to: account, token: BASE_USDC, value: 6n }] },
      // A nonce quoted nowhere here: reported as it is.
      { ...tx(7, 79), kind: 'fill', nonce: 40n, transfers: [] },
    ]);
    const fills = events.filter((e): e is LifecycleEvent => e.type === 'fill');
    expect(fills.map((e) => [e.id.split(':').at(-1), e.nonce, e.recipient, e.tokens])).toEqual([
      [
        '0',
        '20',
        account,
        [
          { token: BASE_USDC, amount: '5' },
          { token: unlisted, amount: '4' },
        ],
      ],
      ['3', '20', other, [{ token: BASE_USDC, amount: '1' }]],
      ['4', '30', account, [{ token: BASE_USDC, amount: '6' }]],
      ['6', '31', account, []],
      ['7', '40', undefined, undefined],
    ]);
  });

  test('review item 5: a fill that declares its amount is taken for one arrival only', async () => {
    const tx = (logIndex: number) => ({ ...at(2, logIndex), transactionHash: hash(77) });
    const into = (logIndex: number) =>
      ({ ...tx(logIndex), kind: 'token-transfer', token: BASE_USDC, from: other, to: account, value: 5n }) as const;
    const { events } = await read([
      into(0),
      into(1),
      { ...tx(2), kind: 'fill', nonce: 10n, recipient: account, token: BASE_USDC, amount: 5n },
    ]);
    // Two equal transfers before the account's own fill: one is its arrival, the other a deposit.
    expect(events.filter((e) => e.type === 'deposit').map((e) => [e.logIndex, e.fillNonce])).toEqual([
      [0, '10'],
      [1, undefined],
    ]);
  });

  test('every settlement is seen: a Permit2 claim is a transfer out of the sponsor in the block that spent its nonce', async () => {
    const out = (n: number, logIndex: number, from = sponsor) =>
      ({ ...at(n, logIndex), kind: 'token-transfer', token: BASE_USDC, from, to: other, value: 5n }) as const;
    const cancel = (n: number, word: bigint, mask: bigint) =>
      ({ ...at(n, 5), kind: 'nonce-invalidation', owner: sponsor, word, mask }) as const;
    const elsewhere = { ...out(4, 0), token: unlisted };
    const logs: ChainLog[] = [
      out(1, 0),
      out(2, 0),
      out(2, 1),
      out(3, 0, other),
      out(3, 1),
      cancel(3, 0n, 1n << 11n),
      elsewhere,
    ];
    // Nonce 300 (word 1, bit 44) spent in block 2, nonce 7 in block 0 (before the range), nonce 9 never; nonce 11
    // spent in block 3, where the sponsor cancelled it; nonce 12 in block 4, where the sponsor sent a token no hold is in.
    const spentAt = new Map([
      [300n, 2n],
      [7n, 0n],
      [11n, 3n],
      [12n, 4n],
    ]);
    const holds = ['300', '7', '9', '11', '12'].map((nonce) => ({ nonce, tokens: new Set([BASE_USDC]) }));
    const asked: [string, bigint, bigint][] = [];
    const claims = await permit2Claims(logs, new Map([[sponsor, holds]]), async (owner, nonce, block) => {
      asked.push([owner, nonce, block]);
      return spentAt.has(nonce) && spentAt.get(nonce)! <= block;
    });
    expect(claims).toEqual([{ ...at(2, 0), kind: 'claim', nonce: 300n, permit2: true }]);
    // Read at the blocks where the sponsor sent tokens and the block before each; never for another sender's.
    expect(new Set(asked.map(([, , b]) => b))).toEqual(new Set([0n, 1n, 2n, 3n]));
    // The claim is reported with its block and an id of its own per nonce; the sponsor's balance is read.
    const { events } = await read([...logs, ...claims]);
    expect(events.find((e) => e.type === 'claim')).toMatchObject({
      id: `chain:8453:${hash(1002)}:${hash(2002)}:0:permit2:300`,
      nonce: '300',
      transactionHash: hash(2002),
      blockNumber: '2',
    });
    expect(events.filter((e) => e.type === 'balance').map((e) => e.account)).toEqual([sponsor]);
  });

  test('irreversible decisions wait for confirmation: balances above the settlement depth are reported unconfirmed, with no clock', async () => {
    const transfer = { ...at(2), kind: 'lock-transfer', from: account, to: other, id: lockId(BASE_USDC) } as const;
    const [shallow, deep] = await Promise.all([read([transfer], [], true), read([transfer])]);
    expect(shallow.events.map((e) => e.type === 'balance' && [e.unconfirmed, e.blockTimestamp])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
    expect(deep.events.map((e) => e.type === 'balance' && [e.unconfirmed, e.blockTimestamp])).toEqual([
      [undefined, 1_700_000_003],
      [undefined, 1_700_000_003],
    ]);
    // Ids of their own: a confirmed snapshot of the same block is not taken for a duplicate of the shown one.
    expect(shallow.events[0].id).not.toBe(deep.events[0].id);
  });

  test('after a rewind, the balances of the abandoned ranges are read again at the new range end', async () => {
    const key = { account, lockId: lockId(BASE_USDC).toString() };
    const { events, reads } = await read([], [key]);
    expect(reads).toEqual([{ ...key, block: 3n }]);
    expect(events[0].id).toMatch(new RegExp(`^chain:8453:${hash(1003)}:balance:[0-9a-f]{16}$`));
  });
});

describe('rewind: back to the newest reported range still canonical', () => {
  const chain = { chainId: 10, startBlock: 1 } as Parameters<typeof rewind>[1];
  const ref = (n: number, branch = 'a') => ({ number: String(n), hash: `0x${branch}${n}` });
  const range = (n: number, deposits: DepositKey[] = []) => ({
    block: ref(n),
    balances: [{ account: '0xaa', token: BASE_USDC }],
    deposits,
  });
  const deposit: DepositKey = {
    transactionHash: hash(9),
    account: '0x00000000000000000000000000000000000000aa',
    token: BASE_USDC,
    sender: '0x00000000000000000000000000000000000000bb',
    amount: '5',
    occurrence: 0,
  };
  /** A chain whose blocks up to `fork` are branch a's, above it branch b's. */
  const chainWith = (fork: number) =>
    ({
      getBlock: async ({ blockNumber }: { blockNumber: bigint }) => ({
        hash: Number(blockNumber) <= fork ? `0xa${blockNumber}` : `0xb${blockNumber}`,
      }),
    }) as unknown as Parameters<typeof rewind>[2];
  const deps = () => {
    const warnings: string[] = [];
    return {
      warnings,
      deps: { log: { warn: (_: object, msg: string) => warnings.push(msg) } } as unknown as Parameters<
        typeof rewind
      >[0],
    };
  };

  test('keeps the ranges still canonical; the abandoned ones leave their balances to read again and their deposits to void', async () => {
    const { warnings, deps: d } = deps();
    const cursor = { last: ref(30), recent: [range(10), range(20), range(30, [deposit])] };
    const read = await rewind(d, chain, chainWith(25), cursor);
    expect(read).toEqual({
      cursor: {
        last: ref(20),
        recent: [range(10), range(20)],
        resnapshot: { above: '30', balances: [{ account: '0xaa', token: BASE_USDC }] },
        voids: { above: '30', deposits: [deposit] },
      },
      events: 0,
      rewound: 10,
    });
    expect(warnings).toEqual(['a reorg abandoned blocks with reported deposits']);
  });

  test('a second rewind before the first is settled keeps the higher abandoned height and every pending deposit', async () => {
    const { deps: d } = deps();
    const other = { ...deposit, amount: '6' };
    const cursor = {
      last: ref(22),
      recent: [range(10), range(22, [other])],
      voids: { above: '30', deposits: [deposit] },
    };
    const read = await rewind(d, chain, chainWith(15), cursor);
    expect(read.cursor.voids).toEqual({ above: '30', deposits: [deposit, other] });
    expect(read.cursor.last).toEqual(ref(10));
  });

  test('a reorg deeper than every range kept stops the workflow; with fewer ranges kept it starts over', async () => {
    const { warnings, deps: d } = deps();
    const full = { last: ref(64), recent: Array.from({ length: 64 }, (_, i) => range(i + 1)) };
    await expect(rewind(d, chain, chainWith(0), full)).rejects.toThrow(/abandoned every one of the last 64 ranges/);
    const few = await rewind(d, chain, chainWith(0), { last: ref(2), recent: [range(1), range(2)] });
    expect(few.cursor.last).toBeNull();
    expect(few.rewound).toBe(2);
    expect(warnings).toEqual([]);
  });
});

describe('a reorg voids what it dropped', () => {
  const key = (amount: string, occurrence = 0): DepositKey => ({
    transactionHash: hash(7),
    account: '0x00000000000000000000000000000000000000aa',
    token: BASE_USDC,
    sender: '0x00000000000000000000000000000000000000bb',
    amount,
    occurrence,
  });
  const voids = { above: '20', deposits: [key('5'), key('5', 1), key('6')] };

  test('deposits the new branch reports again are found; the rest wait until it passes the abandoned height', () => {
    // Mined again (another place, same transfer; addresses in other case): found, whatever the range.
    const again = { ...key('5'), transactionHash: hash(7).toUpperCase().replace('0X', '0x') };
    expect(stillMissing(voids, [again], 15n)).toEqual({
      due: [],
      pending: { above: '20', deposits: [key('5', 1), key('6')] },
    });
    expect(stillMissing(voids, [key('6')], 20n)).toEqual({ due: [key('5'), key('5', 1)] });
    expect(stillMissing(voids, [key('5'), key('5', 1), key('6')], 12n)).toEqual({ due: [] });
    expect(stillMissing(undefined, [key('5')], 30n)).toEqual({ due: [] });
  });
});

test('solidity/artifacts.json is what solidity/*.sol compile to (npm run contracts)', () => {
  expect(fs.readFileSync(ARTIFACTS_FILE, 'utf8')).toBe(compileContracts());
});
