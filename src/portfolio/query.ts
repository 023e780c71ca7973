type RawQuery = Record<string, string | string[] | undefined>;

/**
 * Both published clients' filter styles become one shape: V1 sends `chainIds=1,10&tokens=1:0xA,10:0xB`; V0 sends
 * `chainIds[]=1&chainIds[]=10` and an always-empty `tokens=`, which means "no filter".
 */
export function normalizePortfolioQuery(raw: RawQuery): Record<string, unknown> {
  const list = (name: string) =>
    [raw[name], raw[`${name}[]`]]
      .flat()
      .filter((v): v is string => typeof v === 'string')
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const out: Record<string, unknown> = {};
  const chainIds = list('chainIds');
  const tokens = list('tokens');
  if (chainIds.length) out.chainIds = chainIds;
  if (tokens.length) out.tokens = tokens;
  if (raw.filterEmpty !== undefined)
    out.filterEmpty = Array.isArray(raw.filterEmpty) ? raw.filterEmpty[0] : raw.filterEmpty;
  return out;
}

/** 2026-04.blanc: each filter value is its own repeated parameter (`chainIds=eip155:1&chainIds=eip155:10`). */
export function normalizeRepeatedQuery(raw: RawQuery): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of ['chainIds', 'tokens']) {
    const values = [raw[name]].flat().filter((v): v is string => typeof v === 'string' && v !== '');
    if (values.length) out[name] = values;
  }
  if (raw.filterEmpty !== undefined)
    out.filterEmpty = Array.isArray(raw.filterEmpty) ? raw.filterEmpty[0] : raw.filterEmpty;
  return out;
}
