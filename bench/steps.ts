/**
 * Where the time goes: each route's domain steps (quote, submit, one-event indexer batch) timed one by one in this
 * process, against the same PostgreSQL and Temporal (median of 60 calls each).
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { createServices } from '../src/api/services';
import { bodyAjv } from '../src/http/schema';
import { ingestEvents } from '../src/ingestion/ingest';
import { loadMarket } from '../src/intents/market';
import type { IntentInput } from '../src/intents/quote';
import { createQuote } from '../src/intents/quote-service';
import { intentInput } from '../src/intents/schemas';
import { signIntentOp } from '../src/intents/server-signature';
import { acceptIntent } from '../src/intents/store';
import { findQuote, recordQuotes } from '../src/intents/quote-store';
import type { IntentOp } from '../src/intents/types';
import { verifySubmission } from '../src/intents/verify';
import { availableSources } from '../src/ledger/ledger';
import { createLogger } from '../src/logger';
import { balance } from './indexer';
import type { Kit, Stack } from './kit';
import { routeBody, sign } from './quotes';

/** Median ms per step, by name (bench/report.ts reads them by their prefixes); `spare`: 60 funded, unused accounts. */
export async function benchSteps(kit: Kit, stack: Stack, spare: PrivateKeyAccount[]): Promise<Record<string, number>> {
  const { rt, db, projectId } = stack;
  const { median } = kit;
  const services = createServices(rt, db, stack.temporalClient, createLogger('silent', 'bench'));
  const deps = {
    registry: rt.registry,
    rpc: rt.rpc,
    config: rt.config,
    lockTag: rt.defaultLockTag,
    orchestrator: services.orchestrator,
    nonces: services.nonces,
  };
  const steps: Record<string, number> = {};
  const ops: IntentOp[] = [];
  const validateInput = bodyAjv.compile(intentInput); // the route's own schema fills the same defaults
  const quoteInput = (address: string) => {
    const body = routeBody(address);
    if (!validateInput(body)) throw new Error(JSON.stringify(validateInput.errors));
    return body as unknown as IntentInput;
  };
  steps['quote: createQuote (read balances and market, nonce, sign, insert)'] = await median(
    spare.length,
    async (i) => {
      ops.push((await createQuote(db, quoteInput(spare[i].address), projectId, deps)).intentOp);
    },
  );
  steps['quote: of which the reads (balances and market, concurrently)'] = await median(spare.length, (i) =>
    Promise.all([
      availableSources(db, spare[i].address, rt.defaultLockTag, rt.registry),
      loadMarket(db, rt.registry, [8453, 42161], rt.rpc),
    ]),
  );
  steps['quote: of which the server signature'] = await median(spare.length, (i) =>
    signIntentOp(ops[i], services.orchestrator),
  );
  steps['quote: of which the store (quote and nonce record, one statement)'] = await median(spare.length, async (i) =>
    recordQuotes(
      db,
      [{ nonce: await services.nonces.next(ops[i].sponsor), operation: ops[i], cost: {}, reservations: [] }],
      { projectId, account: ops[i].sponsor, expiresAt: Math.floor(Date.now() / 1000), planGroup: null },
    ),
  );
  const signedOps = await Promise.all(ops.map((op, i) => sign(stack, spare[i], op as never)));
  const verifyDeps = { compactContract: rt.config.intents.compactSigningContract, rpc: rt.rpc };
  steps['submit: read the stored quote'] = await median(signedOps.length, (i) =>
    findQuote(db, BigInt(ops[i].nonce).toString(), projectId),
  );
  steps['submit: verify (same operation as stored, sponsor signatures)'] = await median(signedOps.length, (i) =>
    verifySubmission(signedOps[i], ops[i], 'EOA', verifyDeps),
  );
  const starts: Parameters<typeof services.outbox.start>[0][] = [];
  steps['submit: record (reserve, intent, outbox row in one transaction)'] = await median(
    signedOps.length,
    async (i) => {
      const accepted = await acceptIntent(
        db,
        BigInt(ops[i].nonce).toString(),
        { originSignatures: signedOps[i].originSignatures, destinationSignature: signedOps[i].destinationSignature },
        projectId,
        { fillGraceSeconds: rt.config.intents.fillGraceSeconds, proofDays: rt.config.allocator.proofDays },
      );
      starts.push(accepted.start!);
    },
  );
  steps['submit: start the lifecycle (workflow start, outbox row cleared)'] = await median(starts.length, (i) =>
    services.outbox.start(starts[i]),
  );
  steps['indexer: one-event batch transaction (record, apply, queue signals)'] = await median(60, (i) =>
    ingestEvents(db, [balance(spare[i].address, String(100_000 + i)) as never], rt.defaultLockTag, {
      registry: rt.registry,
      config: rt.config,
    }),
  );
  return steps;
}
