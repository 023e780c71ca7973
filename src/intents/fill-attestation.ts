import { encodeAbiParameters, getAddress, keccak256, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRpc } from '../chains/rpc';

/** The arbiter's EIP-712 type of an attestation (solidity/IntentArbiter.sol checks it in its own domain). */
export const FILL_ATTESTATION_TYPES = {
  FillAttestation: [
    { name: 'claimHash', type: 'bytes32' },
    { name: 'fillChainId', type: 'uint256' },
    { name: 'fillTransaction', type: 'bytes32' },
    { name: 'relayer', type: 'address' },
  ],
} as const;

/** The service's word that `relayer` filled the claim `claimHash` in `fillTransaction` on `fillChainId`. */
export interface FillAttestation {
  claimHash: Hex;
  fillChainId: number;
  fillTransaction: Hex;
  relayer: Hex;
  signature: Hex;
}

/** What a Permit2 element's attestation names as its claim: Permit2's nonce is per owner, the witness binds the mandate. */
export const permit2ClaimHash = (owner: string, nonce: bigint, witness: Hex): Hex =>
  keccak256(
    encodeAbiParameters(
      [{ type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }],
      [getAddress(owner), nonce, witness],
    ),
  );

/** The attester's key and where the arbiters are: attestations are made for elements that name one of them. */
export interface FillAttester {
  account: PrivateKeyAccount;
  /** INTENT_ARBITER_<chainId>: our arbiter contract on an origin chain */
  arbiters: ReadonlyMap<number, Hex>;
  rpc: ChainRpc;
}

/** Senders of proven fills already read: a fill proven at depth keeps its sender, and relayers ask again and again. */
const senders = new Map<string, Hex>();
const SENDERS_KEPT = 10_000;

/**
 * Who sent a proven fill: the relayer the claim pays. Read from the destination chain (the indexer proved the fill
 * there, so its RPC is configured) once per process; undefined when this process cannot read that chain.
 */
export async function fillSender(rpc: ChainRpc, chainId: number, transactionHash: Hex): Promise<Hex | undefined> {
  const key = `${chainId}:${transactionHash}`;
  const known = senders.get(key);
  if (known) return known;
  const client = rpc.client(chainId);
  if (!client) return undefined;
  const sender = getAddress((await client.getTransaction({ hash: transactionHash })).from);
  if (senders.size >= SENDERS_KEPT) senders.delete(senders.keys().next().value!);
  senders.set(key, sender);
  return sender;
}

/** The attestation for one origin element, signed in the domain of the arbiter it names on its chain. */
export async function attestFill(
  account: PrivateKeyAccount,
  at: { chainId: number; arbiter: Hex },
  fill: Omit<FillAttestation, 'signature'>,
): Promise<FillAttestation> {
  const signature = await account.signTypedData({
    domain: { name: 'IntentArbiter', version: '1', chainId: at.chainId, verifyingContract: at.arbiter },
    types: FILL_ATTESTATION_TYPES,
    primaryType: 'FillAttestation',
    message: { ...fill, fillChainId: BigInt(fill.fillChainId) },
  });
  return { ...fill, signature };
}
