import { keccak256, TransactionReceiptNotFoundError, type Hex, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { crashPoint } from '../faults';
import type { Sent, SignedTx } from '../../workflows/relayer/contract';

/**
 * The relayer's own nonces, per chain. A transaction is signed with the lowest nonce at or above the account's
 * pending count that no transaction signed here is holding; a hold lapses after `holdMs`, so a signature whose
 * workflow never recorded it (its activity timed out, the result was lost) leaves no gap that would stall the
 * account. A signed transaction that loses its nonce to another is found out when sent (`replaced`).
 */
export class Nonces {
  /** chain → nonce → until when it is held */
  private readonly held = new Map<number, Map<number, number>>();
  /** chain → the signature running there: one at a time, so two never take the same nonce */
  private readonly queue = new Map<number, Promise<unknown>>();

  constructor(private readonly holdMs: number) {}

  /** Runs `sign` with the next free nonce of `chainId`, one signature at a time per chain. */
  async take<T>(chainId: number, pending: () => Promise<number>, sign: (nonce: number) => Promise<T>): Promise<T> {
    const prior = this.queue.get(chainId) ?? Promise.resolve();
    const run = prior.then(async () => {
      const now = Date.now();
      const held = this.held.get(chainId) ?? new Map<number, number>();
      this.held.set(chainId, held);
      let nonce = await pending();
      for (const [n, until] of held) if (until < now || n < nonce) held.delete(n);
      while (held.has(nonce)) nonce++;
      const out = await sign(nonce);
      held.set(nonce, now + this.holdMs);
      return out;
    });
    this.queue.set(
      chainId,
      run.catch(() => undefined),
    );
    return run;
  }
}

/** An EIP-1559 transaction of `account` to `to`, gas estimated (with a margin) and fees at today's prices, signed. */
export async function signCall(
  client: PublicClient,
  account: PrivateKeyAccount,
  chainId: number,
  nonce: number,
  call: { to: Hex; data: Hex },
): Promise<SignedTx> {
  const [gas, fees] = await Promise.all([
    client.estimateGas({ account: account.address, to: call.to, data: call.data }),
    client.estimateFeesPerGas(),
  ]);
  const raw = await account.signTransaction({
    type: 'eip1559',
    chainId,
    nonce,
    to: call.to,
    data: call.data,
    gas: (gas * 13n) / 10n,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return { chainId, from: account.address, nonce, hash: keccak256(raw), raw };
}

/**
 * Sends `tx` (again) and waits for its receipt. A receipt already there is the answer; an account nonce past the
 * transaction's without its receipt means another transaction took the nonce, so this one can never mine; a node
 * that refuses the bytes (known already, nonce used) is asked for the receipt all the same. Throws while the
 * transaction is pending, for the caller (Temporal) to ask again later.
 */
export async function sendSigned(
  client: PublicClient,
  tx: SignedTx,
  step: 'fill' | 'claim',
  waitMs: number,
): Promise<Sent> {
  const receipt = await receiptOf(client, tx.hash as Hex);
  if (receipt) return outcome(receipt);
  const mined = await client.getTransactionCount({ address: tx.from as Hex, blockTag: 'latest' });
  if (mined > tx.nonce) {
    // The nonce is used: by this transaction (its receipt came in since the read above) or by another.
    const late = await receiptOf(client, tx.hash as Hex);
    return late ? outcome(late) : { status: 'replaced' };
  }
  await client.sendRawTransaction({ serializedTransaction: tx.raw as Hex }).catch(() => undefined);
  crashPoint(step === 'fill' ? 'relayer-after-fill-sent' : 'relayer-after-claim-sent');
  return outcome(await client.waitForTransactionReceipt({ hash: tx.hash as Hex, timeout: waitMs }));
}

/**
 * The transaction's receipt, or undefined when the node has none. Any other failure (a rate limit, a node down)
 * throws, for Temporal to ask again: taken for "no receipt", it could make a mined transaction look replaced.
 */
async function receiptOf(client: PublicClient, hash: Hex) {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (e) {
    if (e instanceof TransactionReceiptNotFoundError) return undefined;
    throw e;
  }
}

function outcome(receipt: { status: string; blockNumber: bigint; gasUsed: bigint; effectiveGasPrice: bigint }): Sent {
  const gasWei = (receipt.gasUsed * receipt.effectiveGasPrice).toString();
  return receipt.status === 'success'
    ? { status: 'mined', block: receipt.blockNumber.toString(), gasWei }
    : { status: 'reverted', gasWei };
}
