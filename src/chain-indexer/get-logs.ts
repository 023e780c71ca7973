import {
  decodeAbiParameters,
  encodeEventTopics,
  hexToBigInt,
  numberToHex,
  toEventSelector,
  type AbiEvent,
  type AbiParameter,
  type Hex,
  type PublicClient,
} from 'viem';

/** What RPC providers answer when a range holds more logs (or blocks) than they serve in one response. */
const TOO_MANY = /too many|limit|exceed|range|response size|query returned more than|10000 results/i;

/**
 * The logs of `read` over [from, to], the range halved (recursively) while the RPC refuses it as too large. Any other
 * error is thrown: the activity fails and Temporal retries the whole range, so no block is skipped.
 */
export async function logsInRange<L>(
  from: bigint,
  to: bigint,
  read: (from: bigint, to: bigint) => Promise<L[]>,
): Promise<L[]> {
  try {
    return await read(from, to);
  } catch (err) {
    if (from === to || !TOO_MANY.test(errorText(err))) throw err;
    const mid = from + (to - from) / 2n;
    return [...(await logsInRange(from, mid, read)), ...(await logsInRange(mid + 1n, to, read))];
  }
}

const errorText = (err: unknown): string =>
  err instanceof Error ? `${err.message} ${errorText((err as Error & { cause?: unknown }).cause ?? '')}` : String(err);

/** A log and its event's arguments, by name; address arguments lowercase. */
export interface EventLog {
  address: `0x${string}`;
  blockNumber: bigint;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: number;
  eventName: string;
  args: Record<string, unknown>;
}

/**
 * eth_getLogs of `events` (emitted by `address` when given; `args` filters the indexed arguments of a single event)
 * over [from, to], split as `logsInRange` splits it, and decoded as viem's `getLogs` with `strict` decodes them: a log
 * whose topics or data do not fit its event is left out. Decoded here because viem's decoder checksums every address
 * and hashes the event signatures again for every log, which cost more than the node's answer on ranges of
 * thousands of logs; the indexer compares addresses lowercase.
 */
export async function eventLogs(
  client: PublicClient,
  filter: { address?: `0x${string}` | `0x${string}`[]; events: readonly AbiEvent[]; args?: Record<string, unknown> },
  from: bigint,
  to: bigint,
): Promise<EventLog[]> {
  const decoders = new Map(filter.events.map((event) => [toEventSelector(event), decoderOf(event)]));
  const topics = filter.args
    ? encodeEventTopics({ abi: filter.events, eventName: filter.events[0].name, args: filter.args } as never)
    : [[...decoders.keys()]];
  const raw = await logsInRange(from, to, (fromBlock, toBlock) =>
    client.request({
      method: 'eth_getLogs',
      params: [
        {
          ...(filter.address ? { address: filter.address } : {}),
          topics,
          fromBlock: numberToHex(fromBlock),
          toBlock: numberToHex(toBlock),
        },
      ],
    }),
  );
  const out: EventLog[] = [];
  for (const log of raw) {
    const decoder = log.topics[0] === undefined ? undefined : decoders.get(log.topics[0]);
    const args = decoder?.(log.topics, log.data);
    if (!args) continue;
    out.push({
      address: log.address.toLowerCase() as `0x${string}`,
      blockNumber: BigInt(log.blockNumber!),
      blockHash: log.blockHash!,
      transactionHash: log.transactionHash!,
      logIndex: Number(log.logIndex!),
      eventName: decoder!.eventName,
      args,
    });
  }
  return out;
}

type Decoder = ((topics: Hex[], data: Hex) => Record<string, unknown> | undefined) & { eventName: string };

/**
 * An event's arguments from a log's topics and data, or undefined where they do not decode. Words of the two types
 * every followed event has (address, uint256) are read directly; any other type goes through viem's decoder.
 */
function decoderOf(event: AbiEvent): Decoder {
  const named = event.inputs.map((p, i) => ({ ...p, key: p.name || String(i) }));
  const indexed = named.filter((p) => p.indexed);
  const data = named.filter((p) => !p.indexed);
  const plain = data.every((p) => p.type === 'address' || p.type === 'uint256');
  const decode = (topics: Hex[], hex: Hex) => {
    if (topics.length <= indexed.length) return undefined;
    try {
      const args: Record<string, unknown> = {};
      indexed.forEach((p, i) => (args[p.key] = topicValue(p, topics[i + 1])));
      if (plain) {
        if (hex.length < 2 + 64 * data.length) return undefined;
        data.forEach((p, i) => (args[p.key] = word(p, `0x${hex.slice(2 + 64 * i, 66 + 64 * i)}`)));
      } else if (data.length) {
        if (hex === '0x') return undefined;
        const values = decodeAbiParameters(data, hex);
        data.forEach((p, i) => (args[p.key] = p.type === 'address' ? (values[i] as string).toLowerCase() : values[i]));
      }
      return args;
    } catch {
      return undefined;
    }
  };
  return Object.assign(decode, { eventName: event.name });
}

/** An indexed argument: a dynamic type's topic is its hash, kept as it is. */
function topicValue(p: AbiParameter, topic: Hex): unknown {
  if (p.type === 'string' || p.type === 'bytes' || p.type === 'tuple' || p.type.endsWith(']')) return topic;
  return word(p, topic);
}

function word(p: AbiParameter, value: Hex): unknown {
  if (p.type === 'address') return `0x${value.slice(26)}`.toLowerCase();
  if (p.type === 'uint256') return hexToBigInt(value);
  return decodeAbiParameters([p], value)[0];
}
