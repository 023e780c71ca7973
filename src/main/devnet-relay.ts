import { getAddress } from 'viem';
import { splitLockId } from '../chains/lock-tag';
import { compactClaimPayload } from '../dev/compact-claim';
import type { ClaimAuthorization } from '../intents/claim-authorization';
import { permit2WitnessCall } from '../intents/permit2-call';
import { callApi, devnetChain, readDevnet, sendContract, type Devnet } from '../dev/devnet-tools';
import { waitFor } from '../dev/processes';
import type { IntentOp, Submission } from '../intents/types';
import { exitOnError } from '../runtime';

const USAGE = 'usage: npm run devnet:relay -- <apiKey> <intentId>...   (fills each intent, then claims it)';
const WAIT_MS = 120_000;

/**
 * A relayer for the devnet, using the service's API as a relayer does: for each intent it reads the signed
 * operation (`GET /intent-operation/{id}?full=true`), pays the recipient exactly the mandate's `tokenOut` on the
 * destination chain through our Filler (approving it first), waits until the service has seen the fill (FILLED: read
 * from the chain by its indexer, nothing is posted to it), then takes the claim authorization
 * (`GET /intent-operation/{id}/claim-authorization`) with the service's attestation of its fill, and claims each origin
 * element through the element's arbiter (our IntentArbiter): a lock through the claim function the authorization
 * names, which the arbiter makes on the devnet's DevnetCompact (it checks the sponsor's and the allocator's
 * signatures, the nonce and the expiry as The Compact does) paying the relayer the tokens; wallet funds through
 * Permit2, the arbiter being the spender the sponsor signed. Then it waits for COMPLETED.
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
  const auth = (await res.json()) as ClaimAuthorization & { message?: string };
  if (!res.ok) return log(`no claim: ${auth.message}`);
  let claimed = 0;
  for (const [i, element] of auth.elements.entries()) {
    const chain = devnetChain(devnet, element.chainId);
    const el = op.elements[i];
    if (!element.fillAttestation) {
      log(`chain ${element.chainId}: no attestation for the arbiter ${el.arbiter} (settled already, or not ours)`);
      continue;
    }
    // The arbiter claims for the relayer the service attests, once shown the attestation: the fill's sender.
    const { signature: attestation, ...attested } = element.fillAttestation;
    if (element.fundingMethod === 'PERMIT2') {
      const signature = signatures.originSignatures[i];
      if (typeof signature !== 'string') throw new Error(`chain ${element.chainId}: not a Permit2 signature`);
      const { permit, witness, witnessTypeString } = permit2WitnessCall(el, op.nonce, op.expires);
      const tx = await sendContract(chain, relayer.privateKey, element.arbiter, 'IntentArbiter', 'permit2Claim', [
        permit,
        op.sponsor,
        witness,
        witnessTypeString,
        signature,
        attested,
        attestation,
      ]);
      const pulled = permit.permitted.map(({ token, amount }) => `${amount} of ${token}`).join(', ');
      log(`claimed on ${chain.chainId} through the arbiter and Permit2: ${pulled} from ${op.sponsor} (${tx})`);
      claimed++;
      continue;
    }
    if (element.fundingMethod !== 'COMPACT' || !element.allocatorData) {
      log(`chain ${element.chainId}: the allocator authorizes no claim (settled already)`);
      continue;
    }
    // Each lock's allocated amount, all to the attested relayer as the token itself (a claimant of lock tag 0).
    const payload = compactClaimPayload(op, element, (_, amount) => [{ claimant: BigInt(attested.relayer), amount }]);
    const tx = await sendContract(chain, relayer.privateKey, element.arbiter, 'IntentArbiter', element.claim, [
      payload,
      attested,
      attestation,
    ]);
    const locks = el.idsAndAmounts.map(([lockId, amount]) => `${amount} of lock ${lockId}`).join(', ');
    log(`claimed on ${chain.chainId} through the arbiter's ${element.claim}: ${locks} (${tx})`);
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
