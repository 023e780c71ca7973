import type { privateKeyToAccount } from 'viem/accounts';
import { ARB_USDC, getCompactTypedData } from './fixtures';
import { type Api, call } from './harness';

/**
 * The account's own intent, 1 USDC to Arbitrum from what it holds, quoted, signed by it (the 1.x client's typed data)
 * and accepted by the API: its id. The account must be funded already.
 */
export async function submitOwnIntent(api: Api, account: ReturnType<typeof privateKeyToAccount>): Promise<string> {
  const route = await call(api, 'POST', '/intents/route', {
    body: {
      account: { address: account.address, accountType: 'EOA', setupOps: [] },
      destinationChainId: 42161,
      tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
    },
  });
  if (route.status !== 200) throw new Error(`route: ${route.status} ${route.text}`);
  const op = route.json.intentOp;
  const signature = await account.signTypedData(getCompactTypedData(op));
  const res = await call(api, 'POST', '/intent-operations', {
    body: { signedIntentOp: { ...op, originSignatures: [signature], destinationSignature: signature } },
  });
  if (res.status !== 201) throw new Error(`submit: ${res.status} ${res.text}`);
  return BigInt(op.nonce).toString();
}
