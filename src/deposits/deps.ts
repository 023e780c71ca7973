import type { Db } from '../db/types';
import { NonceBlock } from '../ledger/nonces';
import type { Runtime } from '../runtime';
import type { DepositDeps } from './intent-attempts';
import { sessionSigners } from './signer';
import { fastAccount } from '../signatures/secp256k1';

/** The worker's deposit activities use the intent core as the API does: same registry, keys, nonces and checks. */
export function depositDeps(rt: Runtime, db: Db): DepositDeps {
  return {
    registry: rt.registry,
    quote: {
      registry: rt.registry,
      config: rt.config,
      lockTag: rt.defaultLockTag,
      orchestrator: fastAccount(rt.secrets.orchestratorPrivateKey),
      nonces: new NonceBlock(db),
      rpc: rt.rpc,
    },
    verify: { compactContract: rt.config.intents.compactSigningContract, rpc: rt.rpc },
    sessionSigner: sessionSigners(rt.secrets.orchestratorPrivateKey),
  };
}
