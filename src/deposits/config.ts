import { depositTurns, MAX_DEPOSIT_TURNS } from '../../workflows/deposit-state';
import { ConfigError, int, usd } from '../env';
import type { IntentConfig } from '../intents/config';
import type { AllocatorConfig } from '../withdrawals/config';

/** The deposit processor's thresholds (docs/deposit-processor.md, Configuration). */
export interface DepositConfig {
  /** deposits worth less (USD, indexer prices else the defaults) are rejected with BALANCE-4 */
  minUsd: number;
  /** received → bridge started: past this, `deposit-delayed` (once) */
  expectedSeconds: number;
  /** bridge started → settled: past this, `bridge-delayed` (once per attempt) */
  bridgeExpectedSeconds: number;
  /** the fill deadline of a deposit's intent, from its quote */
  bridgeTimeoutSeconds: number;
  /** fresh-quote retries after a failed bridge before the deposit is refunded */
  bridgeRetries: number;
  /** pause between attempts to quote while the funds or a route are not there yet */
  retrySeconds: number;
  /** how long a deposit waits for its funds to show in the account's balance (then BALANCE-1) */
  fundsWaitSeconds: number;
  /** refund intents tried before a refund is left to a transfer made outside (`deposit-refund`) */
  refundAttempts: number;
  /** transfers of unsupported tokens into an account: the first of each such period is recorded, the rest counted */
  unsupportedReportSeconds: number;
}

export function depositConfig(env: NodeJS.ProcessEnv): DepositConfig {
  return {
    minUsd: usd(env, 'DEPOSIT_MIN_USD', 1),
    expectedSeconds: int(env, 'DEPOSIT_EXPECTED_SECONDS', 120, 1, 86_400),
    bridgeExpectedSeconds: int(env, 'DEPOSIT_BRIDGE_EXPECTED_SECONDS', 300, 1, 86_400),
    bridgeTimeoutSeconds: int(env, 'DEPOSIT_BRIDGE_TIMEOUT_SECONDS', 1800, 2, 86_400),
    bridgeRetries: int(env, 'DEPOSIT_BRIDGE_RETRIES', 2, 0, 20),
    retrySeconds: int(env, 'DEPOSIT_RETRY_SECONDS', 10, 1, 3600),
    fundsWaitSeconds: int(env, 'DEPOSIT_FUNDS_WAIT_SECONDS', 3600, 1, 7 * 86_400),
    refundAttempts: int(env, 'DEPOSIT_REFUND_ATTEMPTS', 5, 1, 100),
    unsupportedReportSeconds: int(env, 'DEPOSIT_UNSUPPORTED_REPORT_SECONDS', 3600, 1, 30 * 86_400),
  };
}

/**
 * What the deposit processor reads of the settings: its own, and those of the intent core and the allocator it
 * moves funds through; of the followed chains, the contracts no account may be registered at.
 */
export interface DepositSettings {
  deposits: DepositConfig;
  intents: IntentConfig;
  allocator: AllocatorConfig;
  chainIndexer: { chains: { compact: string; permit2: string; filler?: string }[] };
}

/**
 * Refuses deposit settings under which one deposit's workflow history could outgrow Temporal's limit (its intents'
 * claim window counts too, hence a check over the composed settings).
 */
export function checkDepositHistory(deposits: DepositConfig, claimWindowSeconds: number): void {
  const turns = depositTurns(deposits, claimWindowSeconds);
  if (turns > MAX_DEPOSIT_TURNS) {
    throw new ConfigError(
      `DEPOSIT_FUNDS_WAIT_SECONDS / DEPOSIT_RETRY_SECONDS, DEPOSIT_BRIDGE_TIMEOUT_SECONDS + INTENT_CLAIM_WINDOW_SECONDS and DEPOSIT_BRIDGE_RETRIES or DEPOSIT_REFUND_ATTEMPTS allow ${turns} waiting turns in one deposit's workflow, at most ${MAX_DEPOSIT_TURNS} (its Temporal history would outgrow the limit)`,
    );
  }
}
