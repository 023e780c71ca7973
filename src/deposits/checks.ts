import type { DepositErrorCode } from './errors';

export interface DepositFacts {
  /** the source token as the registry knows it; undefined: unsupported on the source chain */
  token?: { symbol: string; decimals: number; address: string };
  amount: bigint;
  /** USD per whole token; undefined when no price is known (the minimum is then not applied) */
  priceUsd?: number;
  minUsd: number;
  managed: boolean;
  /** the registration is proven: signed by the account, or the project's session signer enabled on chain */
  proven: boolean;
  hasSession: boolean;
  requireCompliance: boolean;
  complianceApproved: boolean;
  sameChain: boolean;
  targetToken: string;
  /** the target token's symbol: the intent core moves a token across chains, it does not swap one for another */
  targetSymbol: string;
  /** the recipient is the account itself: a same-chain, same-token deposit is then already where it should be */
  recipientIsAccount: boolean;
}

export const UNSUPPORTED_TOKEN = 'Token not supported on this chain';

export type Verdict =
  | { kind: 'reject'; code: DepositErrorCode; message: string; limits?: { minAmountUsd: string } }
  | { kind: 'direct' }
  | { kind: 'bridge' };

/**
 * The checks a received deposit passes before anything moves, in order: the token is supported on its chain, it is
 * worth the minimum, the account has a usable session there (managed accounts have one everywhere), and the
 * project's compliance requirement holds, and the target is the same token (by symbol) on some chain. A same-chain,
 * same-token deposit to its own account needs no intent.
 */
export function verdict(f: DepositFacts): Verdict {
  if (!f.proven)
    return {
      kind: 'reject',
      code: 'ACCOUNT-2',
      message:
        "The account has not proven it is this project's (a registration it signed, or the project's session signer enabled on chain): its deposits are recorded, nothing is moved",
    };
  if (!f.token) return { kind: 'reject', code: 'TOKEN-1', message: UNSUPPORTED_TOKEN };
  if (f.priceUsd !== undefined && (Number(f.amount) / 10 ** f.token.decimals) * f.priceUsd < f.minUsd) {
    return {
      kind: 'reject',
      code: 'BALANCE-4',
      message: `Deposit is below the minimum of ${f.minUsd} USD`,
      limits: { minAmountUsd: String(f.minUsd) },
    };
  }
  if (!f.managed && !f.hasSession)
    return {
      kind: 'reject',
      code: 'SESSION-1',
      message: 'The account has no session on this chain; add one with POST /account/{address}/session',
    };
  if (f.requireCompliance && !f.complianceApproved)
    return { kind: 'reject', code: 'COMPLIANCE-1', message: "The account's customer has no approved verification" };
  if (f.token.symbol !== f.targetSymbol)
    return {
      kind: 'reject',
      code: 'BRIDGE-6',
      message: `No route from ${f.token.symbol} to ${f.targetSymbol}: deposits are moved, not swapped`,
    };
  if (f.sameChain && f.token.address.toLowerCase() === f.targetToken.toLowerCase() && f.recipientIsAccount)
    return { kind: 'direct' };
  return { kind: 'bridge' };
}
