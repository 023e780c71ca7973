import { compactAddress } from '../compact/config';
import { addressVar, int } from '../env';

/** INTENT_ARBITER_<chainId>: our arbiter contract on that chain (solidity/IntentArbiter.sol). */
function arbiters(env: NodeJS.ProcessEnv): Map<number, `0x${string}`> {
  const out = new Map<number, `0x${string}`>();
  for (const name of Object.keys(env)) {
    const chain = /^INTENT_ARBITER_(\d+)$/.exec(name);
    if (chain && env[name]) out.set(Number(chain[1]), addressVar(env, name, '0x'));
  }
  return out;
}

/** The arbiter an element on `chainId` names: the chain's arbiter contract, else INTENT_ARBITER. */
export const arbiterOn = (config: Pick<IntentConfig, 'arbiter' | 'arbiters'>, chainId: number): `0x${string}` =>
  config.arbiters.get(chainId) ?? config.arbiter;

/** Intent quote, fill and claim settings (docs/configuration.md: INTENT_* and COMPACT_SIGNING_CONTRACT). */
export type IntentConfig = ReturnType<typeof intentConfig>;

export function intentConfig(env: NodeJS.ProcessEnv) {
  return {
    quoteTtlSeconds: int(env, 'INTENT_QUOTE_TTL_SECONDS', 300, 1, 86_400),
    fillWindowSeconds: int(env, 'INTENT_FILL_WINDOW_SECONDS', 600, 1, 86_400),
    claimWindowSeconds: int(env, 'INTENT_CLAIM_WINDOW_SECONDS', 3600, 1, 2_592_000),
    /** how long after the fill deadline a fill (with an on-chain timestamp before it) may still arrive */
    fillGraceSeconds: int(env, 'INTENT_FILL_GRACE_SECONDS', 30, 0, 3600),
    /**
     * verifyingContract of the MultichainCompact domain submits are verified in: COMPACT_ADDRESS unless overridden
     * (then the intents' sponsor signatures are void in the contract that holds the locks, and no intent is claimable)
     */
    compactSigningContract: addressVar(env, 'COMPACT_SIGNING_CONTRACT', compactAddress(env)),
    arbiter: addressVar(env, 'INTENT_ARBITER', '0x000000000006e2569CaF8Ff021810790e0A0D740'),
    arbiters: arbiters(env),
  };
}
