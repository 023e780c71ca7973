import type { Tx } from '../db/types';
import { preparedQuery } from '../db/prepared';

/** The indexer-reported USD prices by symbol and gas prices by chain id, as decimal strings. */
export type StoredMarket = { prices: Record<string, string>; gas: Record<string, string> };

/** Both tables in one statement: one round trip and one pooled connection. */
export async function readStoredMarket(db: Tx): Promise<StoredMarket> {
  const [row]: StoredMarket[] = await preparedQuery(
    db,
    `SELECT (SELECT coalesce(json_object_agg(symbol, usd::text), '{}') FROM prices) AS prices,
    (SELECT coalesce(json_object_agg(chain_id, gas_price::text), '{}') FROM gas_prices) AS gas`,
    [],
  );
  return row;
}
