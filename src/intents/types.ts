/** The intent operation exactly as the published 1.x client receives, signs and echoes it (all numbers strings). */
export type Hex = `0x${string}`;
export type FundingMethod = 'COMPACT' | 'PERMIT2' | 'NO_FUNDING';

export interface Execution {
  to: string;
  value: string;
  data: string;
}
export interface Op {
  vt: Hex;
  ops: Execution[];
}

export interface SettlementContext {
  settlementLayer: string;
  fundingMethod: FundingMethod;
  using7579: boolean;
  gasRefund?: { token: string; exchangeRate: string; overhead: string };
}

export interface Mandate {
  recipient: string;
  tokenOut: [string, string][];
  destinationChainId: string;
  fillDeadline: string;
  minGas: string;
  preClaimOps: Op;
  destinationOps: Op;
  qualifier: { settlementContext: SettlementContext; encodedVal: Hex };
}

export interface Element {
  arbiter: string;
  chainId: string;
  idsAndAmounts: [string, string][];
  spendTokens: [string, string][];
  beforeFill: boolean;
  smartAccountStatus?: AccountContext;
  mandate: Mandate;
}

export type AccountContext =
  | {
      accountType: 'smartAccount';
      isDeployed: boolean;
      isERC7579: boolean;
      erc7579AccountType: string;
      erc7579AccountVersion: string;
    }
  | { accountType: 'EOA' };

export interface IntentOp {
  sponsor: string;
  nonce: string;
  targetExecutionNonce: string;
  expires: string;
  elements: Element[];
  serverSignature: Hex;
  signedMetadata: Record<string, unknown>;
}

export type OriginSignature = Hex | { notarizedClaimSig: Hex; preClaimSig: Hex };

export interface SignedIntentOp extends IntentOp {
  originSignatures: OriginSignature[];
  destinationSignature: OriginSignature;
  targetExecutionSignature?: Hex;
  signedAuthorizations?: unknown[];
  options?: { dryRun?: boolean };
}

/** The signatures of a verified submit, recorded with the intent. */
export interface Submission {
  originSignatures: OriginSignature[];
  destinationSignature: OriginSignature;
  targetExecutionSignature?: Hex;
  signedAuthorizations?: unknown[];
}
