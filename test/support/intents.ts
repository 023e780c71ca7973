import type { Hex } from 'viem';
import type { privateKeyToAccount } from 'viem/accounts';
import { compactClaimPayload, type Component } from '../../src/relayer-bot/claim-payload';
import type { CompactClaim } from '../../src/intents/claim-authorization';
import type { IntentOp } from '../../src/intents/types';
import { ARB_USDC, fillEvent, getCompactTypedData, TX } from './fixtures';
import { type Api, call, ingest, until } from './harness';
import type { IndexedChain } from './indexed-chain';

type Account = ReturnType<typeof privateKeyToAccount>;

/**
 * A fresh quote for the account's own intent, 1 USDC to Arbitrum from what it holds, signed by it (the 1.x client's
 * typed data): its id and the body's `signedIntentOp`. The account must be funded already. `customDeadline`: its fill
 * deadline (unix seconds), else the fill window's.
 */
export async function signedQuote(api: Api, account: Account, customDeadline?: number) {
  const route = await call(api, 'POST', '/intents/route', {
    body: {
      account: { address: account.address, accountType: 'EOA', setupOps: [] },
      destinationChainId: 42161,
      tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
      ...(customDeadline ? { options: { customDeadline } } : {}),
    },
  });
  expect(route.status).toBe(200);
  const op = route.json.intentOp;
  const signature = await account.signTypedData(getCompactTypedData(op));
  return {
    id: BigInt(op.nonce).toString(),
    signedIntentOp: { ...op, originSignatures: [signature], destinationSignature: signature },
  };
}

/** The account's own intent (see `signedQuote`, and its `customDeadline`), accepted by the API: its id. */
export async function submitOwnIntent(api: Api, account: Account, customDeadline?: number): Promise<string> {
  const { id, signedIntentOp } = await signedQuote(api, account, customDeadline);
  const res = await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } });
  if (res.status !== 201) throw new Error(`submit: ${res.status} ${res.text}`);
  return id;
}

/**
 * The account's own intent, filled before a deadline `seconds` ahead, whose lifecycle has then run past its start
 * delay (it read the fill from its record at the deadline's grace): the events reported from now on are signalled to
 * it, for a minute (its claim window, which this API's quote is given). Its id.
 */
export async function filledPastItsDelay(api: Api, account: Account, seconds = 2): Promise<string> {
  const config = api.services.config.intents;
  const window = config.claimWindowSeconds;
  config.claimWindowSeconds = 60;
  const { id, signedIntentOp } = await signedQuote(api, account, Math.floor(Date.now() / 1000) + seconds).finally(
    () => (config.claimWindowSeconds = window),
  );
  const res = await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } });
  if (res.status !== 201) throw new Error(`submit: ${res.status} ${res.text}`);
  await ingest(api, [fillEvent(id, TX(1))]);
  const lifecycle = api.temporal.workflow.getHandle(`intent-${id}`);
  await until('the lifecycle read its fill', async () => {
    const events = (await lifecycle.fetchHistory()).events ?? [];
    return events.some((e) => e.upsertWorkflowSearchAttributesEventAttributes) ? true : undefined;
  });
  return id;
}

/** The intent's status as GET /intent-operation/:id answers it. */
export const statusOf = async (api: Api, id: string) =>
  (await call(api, 'GET', `/intent-operation/${id}`)).json.status as string;

/** Waits until the intent's status is `status`. */
export const reaches = (api: Api, id: string, status: string, ms?: number) =>
  until(status, async () => ((await statusOf(api, id)) === status ? true : undefined), ms);

/**
 * The intent's claim on `chain` as its arbiter makes it, from the service's claim authorization asked for now (GET
 * /intent-operation/{id}/claim-authorization, refused past `expires`): the claim function it names on the compact it
 * names, sent from the element's arbiter when called, each lock of the element paid out as `portions` says.
 */
export async function authorizedClaim(
  api: Api,
  chain: IndexedChain,
  id: string,
  portions: (id: bigint, amount: bigint) => Component[],
): Promise<() => Promise<Hex>> {
  const auth = await call(api, 'GET', `/intent-operation/${id}/claim-authorization`);
  if (auth.status !== 200) throw new Error(`claim authorization: ${auth.status} ${auth.text}`);
  const c = (auth.json.elements as CompactClaim[]).find((e) => e.chainId === chain.chainId);
  if (!c) throw new Error(`no claim of intent ${id} on chain ${chain.chainId}`);
  const op: IntentOp = (await call(api, 'GET', `/intent-operation/${id}?full=true`)).json.intentOp;
  return () => chain.send(c.compact, 'DevnetCompact', c.claim, [compactClaimPayload(op, c, portions)], c.arbiter);
}
