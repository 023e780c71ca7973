import { compactAddress } from '../compact/config';
import { ConfigError, int } from '../env';

/** The allocator: its lock tag and the withdrawals it signs (docs/configuration.md: ALLOCATOR_* and WITHDRAWAL_*). */
export interface AllocatorConfig {
  lockTag?: string;
  scope: 0 | 1;
  resetPeriod: number;
  compactAddress: `0x${string}`;
  withdrawalExpirySeconds: number;
  maxOutstandingWithdrawals: number;
  /** how long an account's signature proves it to a project for withdrawals allocated without one */
  proofDays: number;
}

export function allocatorConfig(env: NodeJS.ProcessEnv): AllocatorConfig {
  const lockTag = env.ALLOCATOR_LOCK_TAG;
  if (lockTag !== undefined && lockTag !== '' && !/^0x[0-9a-fA-F]{24}$/.test(lockTag)) {
    throw new ConfigError('ALLOCATOR_LOCK_TAG must be a 0x-prefixed 12-byte hex value');
  }
  return {
    lockTag: lockTag ? lockTag.toLowerCase() : undefined,
    scope: int(env, 'ALLOCATOR_SCOPE', 0, 0, 1) as 0 | 1,
    resetPeriod: int(env, 'ALLOCATOR_RESET_PERIOD', 6, 0, 7),
    compactAddress: compactAddress(env),
    withdrawalExpirySeconds: int(env, 'WITHDRAWAL_EXPIRY_SECONDS', 600, 1, 2_592_000),
    maxOutstandingWithdrawals: int(env, 'WITHDRAWAL_MAX_OUTSTANDING', 10, 1, 10_000),
    proofDays: int(env, 'ACCOUNT_PROOF_DAYS', 30, 1, 3650),
  };
}
