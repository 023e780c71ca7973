import { encodeFunctionData, getAddress, parseAbi, type Abi, type Hex, type PublicClient } from 'viem';
import artifacts from '../../solidity/artifacts.json';
import { compactClaimPayload } from './claim-payload';
import type { ClaimAuthorization } from '../intents/claim-authorization';
import { permit2WitnessCall } from '../intents/permit2-call';
import { PERMIT2_ADDRESS } from '../intents/typed-data';
import type { IntentOp, Submission } from '../intents/types';

type AuthElement = ClaimAuthorization['elements'][number];

const claimEvent = parseAbi([
  'event Claim(address indexed sponsor, address indexed allocator, address indexed arbiter, bytes32 claimHash, uint256 nonce)',
]);
const permit2Abi = parseAbi(['function nonceBitmap(address owner, uint256 word) view returns (uint256)']);

/**
 * The claim of an origin element on its chain, through the element's arbiter (solidity/IntentArbiter.sol), with the
 * service's attestation of the fill: a lock through the arbiter's function of the name the authorization gives (it
 * makes that claim on The Compact), each lock's allocated amount all to the attested relayer as the token itself;
 * wallet funds through `permit2Claim`, the arbiter being the spender the sponsor signed, paying the relayer.
 */
export function claimCall(
  op: IntentOp,
  signatures: Submission,
  element: AuthElement,
  index: number,
): { to: Hex; data: Hex } {
  if (!element.fillAttestation)
    throw new Error(`chain ${element.chainId}: the service attests no fill for its arbiter`);
  const { signature: attestation, ...attested } = element.fillAttestation;
  const abi = artifacts.IntentArbiter.abi as Abi;
  if (element.fundingMethod === 'COMPACT') {
    const payload = compactClaimPayload(op, element, (_, amount) => [{ claimant: BigInt(attested.relayer), amount }]);
    const args = [payload, attested, attestation];
    return { to: element.arbiter, data: encodeFunctionData({ abi, functionName: element.claim, args }) };
  }
  const signature = signatures.originSignatures[index];
  if (typeof signature !== 'string') throw new Error(`chain ${element.chainId}: not a Permit2 signature`);
  const { permit, witness, witnessTypeString } = permit2WitnessCall(op.elements[index], op.nonce, op.expires);
  const args = [permit, op.sponsor, witness, witnessTypeString, signature, attested, attestation];
  return { to: element.arbiter, data: encodeFunctionData({ abi, functionName: 'permit2Claim', args }) };
}

/**
 * Whether the element's claim is mined already: The Compact's `Claim` of this sponsor by the element's arbiter with
 * the attested claim hash (its transaction; a `Claim` of the same nonce through another allocator or arbiter, which
 * the sponsor could make, is not this one), or Permit2's nonce of the sponsor used. Read before a claim is signed,
 * so a claim is never sent twice.
 */
export async function claimedAlready(
  client: PublicClient,
  op: IntentOp,
  element: AuthElement,
  lookback: bigint,
): Promise<string | undefined> {
  if (element.fundingMethod === 'COMPACT') {
    const latest = await client.getBlockNumber();
    const logs = await client.getLogs({
      address: element.compact,
      event: claimEvent[0],
      args: { sponsor: getAddress(op.sponsor), arbiter: getAddress(element.arbiter) },
      fromBlock: latest > lookback ? latest - lookback : 0n,
      toBlock: latest,
    });
    const claimHash = element.fillAttestation?.claimHash;
    return logs.find((l) => l.args.nonce === BigInt(op.nonce) && l.args.claimHash === claimHash)?.transactionHash;
  }
  const nonce = BigInt(op.nonce);
  const word = await client.readContract({
    address: PERMIT2_ADDRESS as Hex,
    abi: permit2Abi,
    functionName: 'nonceBitmap',
    args: [getAddress(op.sponsor), nonce >> 8n],
  });
  return (word >> (nonce & 0xffn)) & 1n ? 'claimed earlier (Permit2 nonce used)' : undefined;
}
