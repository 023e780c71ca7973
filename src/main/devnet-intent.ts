import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetChain, readDevnet, usdcUnits } from '../dev/devnet-tools';
import { exitOnError } from '../runtime';

// The published 1.x client, unchanged (a devDependency: this is a client's code, not the service's). Loaded by path,
// as the tests load it: 1.15.0 does not export these subpaths, and its typings pull in browser-only types.
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */
const sdkDir = path.dirname(require.resolve('@rhinestone/sdk'));
const { getOrchestrator }: any = require(path.join(sdkDir, 'orchestrator'));
const { createAuthProvider }: any = require(path.join(sdkDir, 'auth/provider'));
const { getCompactTypedData }: any = require(path.join(sdkDir, 'execution/compact'));
/* eslint-enable @typescript-eslint/no-require-imports, @typescript-eslint/no-explicit-any */

const USAGE = 'usage: npm run devnet:intent -- <apiKey> <destinationChainId> <amount>   (prints the intent id)';

/**
 * An intent as a wallet makes one with `@rhinestone/sdk` 1.15.0: the devnet user (account 1 of `npm run devnet`)
 * asks for `amount` USDC on the destination chain, to itself, from what the service knows it holds (its locks);
 * the client quotes it (`getIntentRoute`), the user signs the client's own typed data (`getCompactTypedData`: the
 * MultichainCompact, one signature for every element) and the client submits it (`submitIntent`).
 */
async function main(argv: string[]) {
  if (argv.length !== 3) {
    console.error(USAGE);
    process.exit(2);
  }
  const [apiKey, chainId, amount] = argv;
  const devnet = readDevnet();
  const destination = devnetChain(devnet, Number(chainId));
  const user = privateKeyToAccount(devnet.accounts[1].privateKey);
  const client = getOrchestrator(createAuthProvider({ apiKey }), devnet.api);

  const { intentOp } = await client.getIntentRoute({
    account: { address: user.address, accountType: 'EOA', setupOps: [] },
    destinationChainId: destination.chainId,
    destinationExecutions: [],
    tokenRequests: [{ tokenAddress: destination.usdc, amount: usdcUnits(amount) }],
    options: { topupCompact: false },
  });
  console.error(
    `quoted: ${amount} USDC on ${destination.chainId} from ${intentOp.elements
      .map((e: { chainId: string; idsAndAmounts: [string, string][] }) => `${e.idsAndAmounts[0][1]} on ${e.chainId}`)
      .join(', ')} (locked funds: The Compact's MultichainCompact)`,
  );
  const signature = await user.signTypedData(getCompactTypedData(intentOp));
  const { result } = await client.submitIntent({
    ...intentOp,
    originSignatures: intentOp.elements.map(() => signature),
    destinationSignature: signature,
  });
  console.error(`submitted: intent ${result.id} is ${result.status}`);
  console.log(result.id);
}

main(process.argv.slice(2)).catch(exitOnError);
