// The DB layer under the stores: how a column of values travels, never which; the SQL stays in the stores.

/**
 * Values that need no quoting (hex addresses, decimal strings, integers; `undefined` as NULL) joined by commas, for a
 * statement to split with `string_to_array($n, ',', 'NULL')`. PostgreSQL splits a list in a fraction of the time it
 * takes to read the same values as an array literal (each character looked at twice), and node-postgres escapes and
 * quotes every element of an array parameter; a join costs next to nothing. A value with any other character (a
 * comma would split it) fails the statement instead.
 */
export function plainList(values: (string | number | undefined)[]): string {
  const list = values.map((v) => v ?? 'NULL').join(',');
  if (/[^0-9A-Za-z,]/.test(list)) throw new Error(`not a plain list: ${list.slice(0, 200)}`);
  return list;
}
