/** Quotes: POST /intents/route for funded accounts, each quote then signed by its account as a client would. */
import type { PrivateKeyAccount } from 'viem/accounts';
import { compactTypedData } from '../src/intents/typed-data';
import type { SignedIntentOp } from '../src/intents/types';
import type { Kit, Result, Stack } from './kit';

export const ARB_USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';

/** 1 USDC to Arbitrum, funded on Base (bench/indexer.ts). */
export const routeBody = (address: string) => ({
  account: { address, accountType: 'EOA', setupOps: [] },
  destinationChainId: 42161,
  tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
  options: {},
});

/** The sponsor's signature of a quoted operation on every element and on the destination. */
export async function sign(
  stack: Stack,
  account: PrivateKeyAccount,
  op: Record<string, unknown>,
): Promise<SignedIntentOp> {
  const sig = await account.signTypedData(
    compactTypedData(op as never, stack.rt.config.intents.compactSigningContract) as never,
  );
  return {
    ...op,
    originSignatures: (op.elements as unknown[]).map(() => sig),
    destinationSignature: sig,
  } as unknown as SignedIntentOp;
}

/** One quote per account of `batch` with `c` clients; the quotes come back signed, for the submits. */
export async function benchQuotes(
  kit: Kit,
  stack: Stack,
  c: number,
  batch: PrivateKeyAccount[],
): Promise<{ result: Result; signed: SignedIntentOp[] }> {
  const quotes: { account: PrivateKeyAccount; op: Record<string, unknown> }[] = [];
  const result = await kit.measure('POST /intents/route (quote)', c, kit.requests, async (i) => {
    const { intentOp } = await stack.post('/intents/route', routeBody(batch[i].address), 200);
    quotes[i] = { account: batch[i], op: intentOp! };
  });
  const signed = await Promise.all(quotes.map(({ account, op }) => sign(stack, account, op)));
  return { result, signed };
}

/** Quotes for `accounts` (8 at a time, unmeasured), signed: intents to submit later. */
export async function signedQuotes(stack: Stack, accounts: PrivateKeyAccount[]): Promise<SignedIntentOp[]> {
  const signed: SignedIntentOp[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < accounts.length) {
        const i = next++;
        const { intentOp } = await stack.post('/intents/route', routeBody(accounts[i].address), 200);
        signed[i] = await sign(stack, accounts[i], intentOp!);
      }
    }),
  );
  return signed;
}
