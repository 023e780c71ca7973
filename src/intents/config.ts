import { addressVar, int } from '../env';

/** Intent quote, fill and claim settings (README: Configuration, INTENT_* and COMPACT_SIGNING_CONTRACT). */
export type IntentConfig = ReturnType<typeof intentConfig>;

export function intentConfig(env: NodeJS.ProcessEnv) {
  return {
    quoteTtlSeconds: int(env, 'INTENT_QUOTE_TTL_SECONDS', 300, 1, 86_400),
    fillWindowSeconds: int(env, 'INTENT_FILL_WINDOW_SECONDS', 600, 1, 86_400),
    claimWindowSeconds: int(env, 'INTENT_CLAIM_WINDOW_SECONDS', 3600, 1, 2_592_000),
    /** how long after the fill deadline a fill (with an on-chain timestamp before it) may still arrive */
    fillGraceSeconds: int(env, 'INTENT_FILL_GRACE_SECONDS', 30, 0, 3600),
    /** verifyingContract of the MultichainCompact domain the client signs (not the canonical Compact; see README) */
    compactSigningContract: addressVar(env, 'COMPACT_SIGNING_CONTRACT', '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f'),
    arbiter: addressVar(env, 'INTENT_ARBITER', '0x000000000006e2569CaF8Ff021810790e0A0D740'),
  };
}
