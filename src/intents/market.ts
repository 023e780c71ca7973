import type { Tx } from '../db/types';
import type { ChainRegistry } from '../chains/registry';
import type { ChainRpc } from '../chains/rpc';
import { DEFAULT_GAS_PRICE_WEI, DEFAULT_PRICES_USD, FALLBACK_GAS_PRICE_WEI } from './market-defaults';
import { readStoredMarket, type StoredMarket } from './market-store';
import { priceInBounds, type Market } from './pricing';

const RPC_CACHE_MS = 15_000;
const rpcGas = new Map<number, { value: bigint; until: number }>();

/** A quote waits this long at most for a live gas price; a slower RPC's is not used. */
const RPC_GAS_DEADLINE_MS = 2000;

/** Live gas price for chains with RPC_URL_<chainId>, cached briefly; undefined when none is configured or it fails. */
async function readRpcGasPrice(chainId: number, rpc: ChainRpc): Promise<bigint | undefined> {
  const client = rpc.client(chainId);
  if (!client) return undefined;
  const hit = rpcGas.get(chainId);
  if (hit && hit.until > Date.now()) return hit.value;
  try {
    let timer: NodeJS.Timeout | undefined;
    const value = await Promise.race([
      client.getGasPrice(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('slow')), RPC_GAS_DEADLINE_MS))),
    ]).finally(() => clearTimeout(timer));
    rpcGas.set(chainId, { value, until: Date.now() + RPC_CACHE_MS });
    return value;
  } catch {
    return undefined;
  }
}

/**
 * How long a process reuses the stored prices and gas prices it read: quotes asked on every keystroke share one read
 * a second instead of one each, and an indexer's `price`/`gas` event shows in quotes within this time.
 */
const STORED_MARKET_MS = 1000;
/** Per pool (a `Db`, which quotes pass): one read shared by every quote of the process. */
const storedMarkets = new WeakMap<Tx, { until: number; read: Promise<StoredMarket> }>();

function storedMarket(db: Tx): Promise<StoredMarket> {
  const hit = storedMarkets.get(db);
  if (hit && hit.until > Date.now()) return hit.read;
  const read = readStoredMarket(db);
  storedMarkets.set(db, { until: Date.now() + STORED_MARKET_MS, read });
  read.catch(() => storedMarkets.get(db)?.read === read && storedMarkets.delete(db)); // not kept
  return read;
}

/**
 * A snapshot of prices and gas prices for one quote: indexer-reported figures first (`price` and `gas` events),
 * then a live RPC read where configured, then the shipped defaults.
 */
export async function loadMarket(
  db: Tx,
  registry: ChainRegistry,
  chainIdsOf: number[] | Promise<number[]>,
  rpc: ChainRpc,
): Promise<Market & { snapshot(): { tokenPrices: Record<string, number>; gasPrices: Record<string, string> } }> {
  // The chain ids may still be loading (the quote reads balances at the same time): the read starts first.
  const [market, chainIds] = await Promise.all([storedMarket(db), chainIdsOf]);
  const priceMap = new Map<string, number>(Object.entries(DEFAULT_PRICES_USD));
  // A stored price outside the bounds (recorded before they were enforced) is ignored, as if never reported.
  for (const [symbol, usd] of Object.entries(market.prices))
    if (priceInBounds(Number(usd))) priceMap.set(symbol, Number(usd));
  const gasMap = new Map<number, bigint>();
  for (const [chainId, price] of Object.entries(market.gas)) gasMap.set(Number(chainId), BigInt(price));
  await Promise.all(
    chainIds.map(async (id) => {
      const live = await readRpcGasPrice(id, rpc);
      if (live !== undefined) gasMap.set(id, live);
    }),
  );
  const gasPriceWei = (id: number) => gasMap.get(id) ?? DEFAULT_GAS_PRICE_WEI[id] ?? FALLBACK_GAS_PRICE_WEI;
  return {
    priceUsd: (symbol) => priceMap.get(symbol),
    gasPriceWei,
    nativeSymbol: (id) => registry.chain(id)?.nativeCurrency.symbol,
    snapshot: () => ({
      tokenPrices: Object.fromEntries(priceMap),
      gasPrices: Object.fromEntries(chainIds.map((id) => [String(id), gasPriceWei(id).toString()])),
    }),
  };
}
