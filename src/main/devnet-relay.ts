import { getAddress, recoverAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { splitLockId } from '../chains/lock-tag';
import { permit2WitnessCall } from '../intents/permit2-call';
import { allocatorDigest } from '../compact/eip712';
import { callApi, devnetChain, readDevnet, sendContract, type Devnet } from '../dev/devnet-tools';
import { waitFor } from '../dev/processes';
import type { IntentOp, Submission } from '../intents/types';
import { exitOnError } from '../runtime';

const USAGE = 'usage: npm run devnet:relay -- <apiKey> <intentId>...   (fills each intent, then claims it)';
const WAIT_MS = 120_000;

interface Authorization {
  chainId: number;
  fundingMethod: 'COMPACT' | 'PERMIT2';
  compact?: Hex;
  allocatorData: Hex | null;
}

/**
 * A relayer for the devnet, using the service's API as a relayer does: for each intent it reads the signed
 * operation (`GET /intent-operation/{id}?full=true`), pays the recipient exactly the mandate's `tokenOut` on the
 * destination chain through our Filler (approving it first), waits until the service has seen the fill (FILLED: read
 * from the chain by its indexer, nothing is posted to it), then takes the claim authorization
 * (`GET /intent-operation/{id}/claim-authorization`) and claims each origin element: a lock through CompactEvents,
 * which stands in for The Compact on the devnet, after checking the allocator's signature as The Compact would; wallet
 * funds through Permit2 with the sponsor's signature, as the element's arbiter (the devnet makes the relayer the
 * arbiter). Then it waits for COMPLETED.
 */
async function relay(devnet: Devnet, apiKey: string, intentId: string): Promise<void> {
  const relayer = devnet.accounts[0];
  const log = (line: string) => console.error(`[relay ${intentId}] ${line}`);
  const read = async () => callApi(devnet, apiKey, `/intent-operation/${intentId}?full=true`);
  const statusIn = async (done: string[]) => {
    let status = '';
    await waitFor(
      `intent ${intentId} ${done.join(' or ')}`,
      async () => done.includes((status = (await read()).status)),
      WAIT_MS,
    );
    return status;
  };
  const intent = await read();
  const op: IntentOp = intent.intentOp;
  const signatures: Submission = intent.signatures;
  if (intent.status === 'PENDING' || intent.status === 'PRECONFIRMED') {
    const { recipient, tokenOut, destinationChainId } = op.elements[0].mandate;
    const chain = devnetChain(devnet, Number(destinationChainId));
    for (const [id, amount] of tokenOut) {
      const token = getAddress(splitLockId(id).token);
      await sendContract(chain, relayer.privateKey, token, 'TestToken', 'approve', [chain.filler, BigInt(amount)]);
    }
    // Exactly the mandate's tokenOut, in one transaction: the service counts a fill only if it paid all of it.
    const tx = await sendContract(chain, relayer.privateKey, chain.filler, 'Filler', 'fillTokenOut', [
      BigInt(op.nonce),
      recipient,
      tokenOut.map(([id, amount]) => [BigInt(id), BigInt(amount)]),
    ]);
    log(
      `filled on ${chain.chainId}: ${tokenOut.map(([id, a]) => `${a} of ${splitLockId(id).token}`).join(', ')} to ${recipient} (${tx})`,
    );
  }
  const filled = await statusIn(['FILLED', 'CLAIMED', 'COMPLETED', 'EXPIRED', 'FAILED']);
  log(`the service reads it as ${filled}`);
  if (filled !== 'FILLED' && filled !== 'CLAIMED') return;

  const res = await fetch(`${devnet.api}/intent-operation/${intentId}/claim-authorization`, {
    headers: { 'x-api-key': apiKey },
  });
  const auth = (await res.json()) as { message?: string; claimHash: Hex; elements: Authorization[] };
  if (!res.ok) return log(`no claim: ${auth.message}`);
  const { allocatorAddress } = (await (await fetch(`${devnet.api}/health`)).json()) as { allocatorAddress: Hex };
  const relayerAddress = privateKeyToAccount(relayer.privateKey).address;
  let claimed = 0;
  for (const [i, element] of auth.elements.entries()) {
    const chain = devnetChain(devnet, element.chainId);
    const el = op.elements[i];
    if (element.fundingMethod === 'PERMIT2') {
      // The signed spender is the element's arbiter and Permit2 takes msg.sender as the spender: only it can claim.
      if (getAddress(el.arbiter) !== relayerAddress)
        throw new Error(`chain ${element.chainId}: the arbiter is ${el.arbiter}, not this relayer (${relayerAddress})`);
      const signature = signatures.originSignatures[i];
      if (typeof signature !== 'string') throw new Error(`chain ${element.chainId}: not a Permit2 signature`);
      const { permit, witness, witnessTypeString } = permit2WitnessCall(el, op.nonce, op.expires);
      const transferDetails = permit.permitted.map(({ amount }) => ({ to: relayerAddress, requestedAmount: amount }));
      const tx = await sendContract(chain, relayer.privateKey, chain.permit2, 'Permit2', 'permitWitnessTransferFrom', [
        permit,
        transferDetails,
        op.sponsor,
        witness,
        witnessTypeString,
        signature,
      ]);
      const pulled = permit.permitted.map(({ token, amount }) => `${amount} of ${token}`).join(', ');
      log(`claimed on ${chain.chainId} through Permit2: ${pulled} from ${op.sponsor} (${tx})`);
      claimed++;
      continue;
    }
    if (element.fundingMethod !== 'COMPACT' || !element.allocatorData) {
      log(`chain ${element.chainId}: the allocator authorizes no claim (settled already)`);
      continue;
    }
    const digest = allocatorDigest(auth.claimHash, element.chainId, element.compact!);
    if ((await recoverAddress({ hash: digest, signature: element.allocatorData })) !== getAddress(allocatorAddress))
      throw new Error(`chain ${element.chainId}: allocatorData is not the allocator's signature`);
    for (const [lockId, amount] of el.idsAndAmounts) {
      const tx = await sendContract(chain, relayer.privateKey, chain.compact, 'CompactEvents', 'claim', [
        op.sponsor,
        allocatorAddress,
        BigInt(op.nonce),
        BigInt(lockId),
        BigInt(amount),
        relayerAddress,
      ]);
      log(`claimed on ${chain.chainId}: ${amount} of lock ${lockId} (${tx})`);
    }
    claimed++;
  }
  if (claimed === auth.elements.length) log(`the service reads it as ${await statusIn(['COMPLETED'])}`);
}

async function main(argv: string[]) {
  if (argv.length < 2) {
    console.error(USAGE);
    process.exit(2);
  }
  const [apiKey, ...intentIds] = argv;
  const devnet = readDevnet();
  for (const intentId of intentIds) await relay(devnet, apiKey, intentId);
  for (const intentId of intentIds)
    console.log(
      JSON.stringify({ intentId, status: (await callApi(devnet, apiKey, `/intent-operation/${intentId}`)).status }),
    );
}

main(process.argv.slice(2)).catch(exitOnError);
