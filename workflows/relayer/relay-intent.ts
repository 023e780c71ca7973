import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import type { RelayActivities, RelayInput, RelayResult, SignedOrDone, SignedTx } from './contract';
import { claimSteps, decideFill } from './relay-state';

/**
 * One intent, relayed: decide (workflows/relayer/relay-state.ts), fill through the settlement contract, wait until
 * the service reports the fill proven, then claim every origin element. Each transaction is signed once, with an
 * explicit nonce, and its signed bytes are kept in this history: a step retried after a crash (of the relayer, or
 * of the activity) sends the very same transaction again, so it can mine at most once; a new one is signed only
 * when the chain shows the step is not done and the old one can never mine (its nonce was taken).
 */
export async function relayIntent(input: RelayInput): Promise<RelayResult> {
  const { intent } = input;
  const retry = {
    initialInterval: input.retrySeconds * 1000,
    backoffCoefficient: 2,
    maximumInterval: input.retrySeconds * 10_000,
  };
  const acts = proxyActivities<RelayActivities>({ startToCloseTimeout: input.stepSeconds * 1000, retry });
  const done = async (result: RelayResult) => {
    await acts.recordOutcome(intent, result);
    return result;
  };

  try {
    return await relay(input, acts, done);
  } catch (e) {
    // A step that can never succeed (the intent expired, another relayer filled it): the intent ends here.
    if (e instanceof ActivityFailure) return done({ outcome: 'failed', reason: e.cause?.message ?? e.message });
    throw e;
  }
}

/** How many times a claim that reverted is signed and sent. */
const CLAIM_TRIES = 3;

async function relay(
  input: RelayInput,
  acts: RelayActivities,
  done: (result: RelayResult) => Promise<RelayResult>,
): Promise<RelayResult> {
  const { intent } = input;
  const decision = decideFill(await acts.readFillFacts(intent));
  if (!decision.fill) return done({ outcome: 'skipped', reason: decision.reason });
  const fill = decision.resume ?? (await mined(acts, () => acts.signFill(intent), 'fill'));
  if (typeof fill !== 'string') return done({ outcome: 'failed', reason: `the fill reverted (${fill.reverted})` });

  const auth = await acts.awaitProven(intent, fill);
  const claims: string[] = [];
  const elements: number[] = [];
  const steps = claimSteps(auth);
  if (steps.every((s) => s !== 'claim')) return done({ outcome: 'failed', reason: `nothing to claim: ${steps}` });
  for (const [index, step] of steps.entries()) {
    if (step !== 'claim') continue;
    // A claim that reverted may pass later (gas estimated anew, the chain moved on): tried again a few times,
    // each time after the chain is read for it done.
    let claim = await mined(acts, () => acts.signClaim(intent, index), 'claim');
    for (let tries = 1; typeof claim !== 'string' && tries < CLAIM_TRIES; tries++) {
      await sleep(input.retrySeconds * 1000 * 2 ** tries);
      claim = await mined(acts, () => acts.signClaim(intent, index), 'claim');
    }
    if (typeof claim !== 'string')
      return done({
        outcome: 'failed',
        reason: `the claim on chain ${auth.elements[index].chainId} reverted ${CLAIM_TRIES} times`,
      });
    claims.push(claim);
    elements.push(index);
  }
  return done({ outcome: 'claimed', fill, claims, elements });
}

/**
 * A step's transaction hash once mined (or the hash the chain shows did the step already), `{reverted}` if it
 * reverted. A transaction replaced by another of the same nonce is never mined: the step is signed again, after
 * the chain is read again.
 */
async function mined(
  acts: RelayActivities,
  sign: () => Promise<SignedOrDone>,
  step: 'fill' | 'claim',
): Promise<string | { reverted: string }> {
  for (;;) {
    const signed = await sign();
    if ('done' in signed) return signed.done;
    const tx: SignedTx = signed.signed;
    const sent = await acts.sendSigned(tx, step);
    if (sent.status === 'mined') return tx.hash;
    if (sent.status === 'reverted') return { reverted: tx.hash };
  }
}
