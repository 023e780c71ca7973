/**
 * A chain indexer's client of its own, for a running service (a fresh `npm start`, or any deployment): posts batches
 * of 1,000 balance events of accounts never seen to POST /indexer/events, one after another, as bench/indexer.ts's
 * newcomer row does inside the bench, and prints each batch's events per second with their median, min and max.
 *
 *   npx tsx bench/ingest-client.ts [--url http://127.0.0.1:3000] [--key <INDEXER_API_KEY>] [--batches 10]
 *
 * The key defaults to INDEXER_API_KEY, else the one `npm start` generated into `<DATA_DIR>/secrets.json`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { balance } from './indexer';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};

function indexerKey(): string {
  const key = arg('--key') ?? process.env.INDEXER_API_KEY;
  if (key) return key;
  const file = path.resolve(process.env.DATA_DIR || '.data', 'secrets.json');
  if (!fs.existsSync(file)) throw new Error(`no --key, no INDEXER_API_KEY and no ${file}: pass the indexer key`);
  return JSON.parse(fs.readFileSync(file, 'utf8')).indexerApiKey;
}

/**
 * Each event of its own block, on a clock of one block every 2 s from the epoch, a month back from now: any run's
 * blocks agree with what earlier runs stored of the chain's clock, and the accounts are new each time.
 */
function batchOf(first: number) {
  return Array.from({ length: 1000 }, (_, j) => ({
    ...balance(`0x${randomBytes(20).toString('hex')}`, String(first + j)),
    blockTimestamp: 2 * (first + j),
  }));
}

async function main() {
  const url = arg('--url') ?? `http://127.0.0.1:${process.env.PORT || 3000}`;
  const batches = Number(arg('--batches') ?? 10);
  if (!Number.isInteger(batches) || batches < 1) throw new Error('--batches takes a positive integer');
  const key = indexerKey();
  const first = Math.floor(Date.now() / 2000) - 1_296_000;
  const bodies = Array.from({ length: batches }, (_, i) => JSON.stringify({ events: batchOf(first + i * 1000) }));
  const rates: number[] = [];
  for (const [i, body] of bodies.entries()) {
    const started = performance.now();
    const res = await fetch(`${url}/indexer/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-indexer-key': key },
      body,
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`batch ${i + 1}: ${res.status} ${text.slice(0, 500)}`);
    rates.push(1000 / (ms / 1000));
    console.log(`batch ${i + 1}: ${ms.toFixed(1)} ms, ${rates.at(-1)!.toFixed(0)} events/s`);
  }
  const sorted = [...rates].sort((a, b) => a - b);
  const median =
    sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  console.log(
    `${batches} batches of 1,000 new accounts: median ${median.toFixed(0)} events/s (min ${sorted[0].toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)})`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
