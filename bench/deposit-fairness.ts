/**
 * Deposit fairness: one project's flood never delays another's deposits. The whole stack (bench/stack.ts); a victim
 * project's proven managed accounts each receive a real deposit (USDC on Base, its balance snapshot with it, bridged
 * to Arbitrum) one after another, and its received → bridge-started time is read from the two webhooks' records.
 * Measured alone and, in turns with those, right after a spammer project's account received `--spam` transfers of a
 * token no registry lists (one indexer batch, as the chain indexer reports a block of them).
 * Usage: npx tsx bench/deposit-fairness.ts [--deposits 40] [--spam 1000]
 * Needs DATABASE_URL and TEMPORAL_CLI like npm run bench. Prints the figures (bench/RESULTS.md, Deposit fairness).
 */
import os from 'node:os';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { registerAccountTypedData } from '../src/deposits/session-digest';
import { createProject } from '../src/projects/api-keys';
import { BASE_USDC } from './indexer';
import { arg, runBench, type Kit, type Stack } from './kit';
import { percentile } from './measure';
import { startStack } from './stack';

const DEPOSITS = Number(arg('--deposits')) || 40;
const SPAM = Number(arg('--spam')) || 1000;
const ARB_USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';
const FAKE_TOKEN = '0x1111111111111111111111111111111111111111';

const cleanup: Kit['cleanup'] = [];
let tx = 1;
const txHash = () => `0x${(tx++).toString(16).padStart(64, 'e')}`;
const address = () => privateKeyToAccount(generatePrivateKey()).address;

/** A managed account of the key's project, proven by its own signature. */
async function provenAccount(stack: Stack, headers: Record<string, string>): Promise<string> {
  const chains = await fetch(`${stack.url}/deposit-processor/chains`, { headers });
  const { sessionSigner } = (await chains.json()) as { sessionSigner: string };
  const key = privateKeyToAccount(generatePrivateKey());
  const proof = { nonce: '1', deadline: String(Math.floor(Date.now() / 1000) + 86_400) };
  const signature = await key.signTypedData(
    registerAccountTypedData(key.address, 42161, sessionSigner, proof) as Parameters<typeof key.signTypedData>[0],
  );
  const account = {
    address: key.address,
    owner: address(),
    sessionSigner,
    target: { chain: 'eip155:42161', token: ARB_USDC },
    accountSignature: signature,
    accountNonce: proof.nonce,
    accountDeadline: proof.deadline,
  };
  await stack.post('/deposit-processor/register-managed', { account }, 201, headers);
  return key.address;
}

const depositEvents = (account: string, token: string, block: number, withBalance: boolean) => {
  const hash = txHash();
  return [
    ...(withBalance
      ? [
          {
            id: `fair-balance-${hash}`,
            type: 'balance',
            chainId: 8453,
            account,
            token,
            unlocked: '5000000',
            blockNumber: block,
          },
        ]
      : []),
    {
      id: `fair-deposit-${hash}`,
      type: 'deposit',
      chainId: 8453,
      transactionHash: hash,
      logIndex: 0,
      token,
      amount: '5000000',
      sender: address(),
      account,
      blockNumber: block,
    },
  ];
};

/** received → bridge-started of the victim's deposit into `account`, from its two webhooks' records (ms). */
async function startedAfter(stack: Stack, account: string): Promise<number> {
  for (const until = Date.now() + 120_000; Date.now() < until;) {
    const [row]: { ms: number | null }[] = await stack.db.query(
      `SELECT extract(epoch FROM s.created_at - r.created_at) * 1000 AS ms
       FROM webhook_events r JOIN webhook_events s ON s.deposit_id = r.deposit_id AND s.type = 'bridge-started'
       WHERE r.type = 'deposit-received' AND r.payload->>'account' = $1`,
      [account.toLowerCase()],
    );
    if (row?.ms != null) return Number(row.ms);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no bridge-started for ${account}`);
}

/** One victim deposit into a fresh proven account, after `spam` fake-token transfers into the spammer's: its time. */
async function victimDeposit(stack: Stack, block: number, spammer?: { account: string }): Promise<number> {
  const account = await provenAccount(stack, stack.headers);
  if (spammer) {
    const spam = Array.from({ length: SPAM }, () => depositEvents(spammer.account, FAKE_TOKEN, block, false)).flat();
    await stack.post('/indexer/events', { events: spam }, 200, stack.indexer);
  }
  await stack.post('/indexer/events', { events: depositEvents(account, BASE_USDC, block, true) }, 200, stack.indexer);
  return startedAfter(stack, account);
}

async function main() {
  const stack = await startStack(cleanup);
  const { apiKey } = await createProject(stack.db, 'spammer');
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const spammer = { account: await provenAccount(stack, headers) };
  // Warm-up (unrecorded), then alone and beside the spam in turns, so neither side gets the warmer machine.
  for (let i = 0; i < 5; i++) await victimDeposit(stack, 1 + i);
  const alone: number[] = [];
  const beside: number[] = [];
  for (let i = 0; i < DEPOSITS; i++) {
    alone.push(await victimDeposit(stack, 10 + 2 * i));
    beside.push(await victimDeposit(stack, 11 + 2 * i, spammer));
  }
  alone.sort((a, b) => a - b);
  beside.sort((a, b) => a - b);
  const p = (xs: number[], q: number) => percentile(xs, q).toFixed(0);
  const change = (percentile(beside, 99) / percentile(alone, 99) - 1) * 100;
  const spamRecords: { n: string }[] = await stack.db.query(
    "SELECT count(*) AS n FROM deposits WHERE account = $1 AND error_code = 'TOKEN-1'",
    [spammer.account.toLowerCase()],
  );
  console.log(
    `Deposit fairness (${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version})`,
  );
  console.log(`| victim deposits | received → bridge-started p50 ms | p99 ms |`);
  console.log(`|---|---|---|`);
  console.log(`| alone (${DEPOSITS}) | ${p(alone, 50)} | ${p(alone, 99)} |`);
  console.log(
    `| each beside ${SPAM} fake-token transfers into another project's account (${DEPOSITS}) | ${p(beside, 50)} | ${p(beside, 99)} |`,
  );
  console.log(`p99 change: ${change.toFixed(1)}% (target < 20%); spam recorded as ${spamRecords[0].n} deposit(s)`);
}

runBench(main, cleanup);
