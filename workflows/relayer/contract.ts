/**
 * The relayer's contract (`npm run relayer`, src/relayer-bot/): one `relayIntent` workflow per open intent of the
 * order feed, on the relayer's own task queue and workflow bundle (workflows/relayer/index.ts), never the service's.
 */
export const relayIntentWorkflowType = 'relayIntent';

/** One workflow per intent and relayer queue: a feed event delivered twice starts nothing twice. */
export const relayWorkflowId = (taskQueue: string, intentId: string) => `relay-${intentId}@${taskQueue}`;

/** An intent as the order feed sends it (docs/relayers.md); operation and signatures as the sponsor signed them. */
export interface FeedIntent {
  id: string;
  fill: {
    chainId: number;
    recipient: string;
    tokens: { token: string; amount: string }[];
    fillDeadline: number;
  };
  operation: { nonce: string; sponsor: string; expires: string; elements: unknown[] };
  signatures: unknown;
}

export interface RelayInput {
  intent: FeedIntent;
  /** how long one step (an activity) may take before Temporal retries it, and so how soon a killed relayer resumes */
  stepSeconds: number;
  /** the first wait before a step is retried (doubled up to ten times this): also how often the service is asked */
  retrySeconds: number;
}

/** What the decision reads, amounts as decimal strings (payloads are JSON). */
export interface FillFacts {
  /** why this relayer cannot relay the intent at all (a chain it has no RPC or filler for), else null */
  unsupported: string | null;
  /** unix seconds, the destination chain's latest block */
  now: number;
  fillDeadline: number;
  /** each token the fill pays: what the relayer holds on the destination chain and what the fill needs */
  inventory: { token: string; held: string; needed: string }[];
  /** the intent's fees (what its claims pay less what its fill pays) valued in wei; null when a token has no price */
  feesWei: string | null;
  /** the fill's and every claim's gas, estimated, at current gas prices */
  gasWei: string;
  /** a fill of this intent already mined: ours (a run before a crash) or another relayer's */
  filled: { by: 'us' | 'other'; tx: string } | null;
}

/** A transaction signed with an explicit account nonce: sending it again can only ever mine this one. */
export interface SignedTx {
  chainId: number;
  from: string;
  nonce: number;
  hash: string;
  raw: string;
}

export type Sent =
  | { status: 'mined'; block: string; gasWei: string }
  | { status: 'reverted'; gasWei: string }
  /** the account's nonce was taken by another transaction: this one can never mine */
  | { status: 'replaced' };

/** One origin element of the claim authorization, as the relayer needs it (src/intents/claim-authorization.ts). */
export interface ClaimElement {
  chainId: number;
  fundingMethod: string;
  allocatorData: string | null;
  /** whether the service attests the fill for this element's arbiter (our arbiter, the fill proven) */
  attested: boolean;
}

export interface ClaimAuthorizationView {
  elements: ClaimElement[];
}

/** A step's work is done already on chain, or here is the transaction that does it. */
export type SignedOrDone = { done: string } | { signed: SignedTx };

export type RelayResult =
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'failed'; reason: string }
  /** `elements`: the origin elements claimed, in order of `claims` (the others were settled or not attested) */
  | { outcome: 'claimed'; fill: string; claims: string[]; elements: number[] };

/** The relayer's activities (src/relayer-bot/activities.ts): I/O only, each safe to run twice. */
export interface RelayActivities {
  /** What the fill rule decides on (workflows/relayer/relay-state.ts). */
  readFillFacts(intent: FeedIntent): Promise<FillFacts>;
  /** The fill, signed with the next nonce of the relayer's account on the destination; done if one is mined. */
  signFill(intent: FeedIntent): Promise<SignedOrDone>;
  /** Sends a signed transaction (again) and waits for it: mined, reverted, or never to mine. */
  sendSigned(tx: SignedTx, step: 'fill' | 'claim'): Promise<Sent>;
  /** The claim authorization once the service reports the fill proven; retried until then. */
  awaitProven(intent: FeedIntent, fillTx: string): Promise<ClaimAuthorizationView>;
  /** The claim of element `index`, signed; done if that element's claim is mined already. */
  signClaim(intent: FeedIntent, index: number): Promise<SignedOrDone>;
  /** Counts and logs a finished intent (the relayer's metrics). */
  recordOutcome(intent: FeedIntent, result: RelayResult): Promise<void>;
}
