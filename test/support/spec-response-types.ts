import type { SpecField, SpecType } from './spec-types';

/**
 * Every response field whose JSON type the spec (service-api.md, Resources and Endpoints) states, for the routes a
 * client parses, as the spec states it: route, field (dots into objects, `[]` into the first item of an array, `*`
 * into every value of a map, `.0` and `.1` into the two items of a pair) and type.
 * test/integration/spec-types.test.ts gets one real answer of each route through the HTTP API and checks each field
 * is there in that type. Kept here because the project reads nothing from the spec's folder at test time: a field
 * the spec adds is added here. Rows typed through the spec's general rule ("amounts and large numbers are strings of
 * decimal digits unless a type is stated otherwise; addresses are hex strings") are the intent cost's
 * `tokensReceived[]` fields, whose table names them without a type.
 *
 * Where we answer differently from the spec's type to keep values exact: in no field. The one place a plain
 * reading would lose digits is kept in the spec's type: the withdrawals' 256-bit values the spec types as JSON
 * numbers (`id`, `nonce`, `claimant`, `amount`) are JSON numbers written as exact integer literals, which a
 * big-number-aware parser reads whole and `JSON.parse` rounds (docs/api.md, Amounts); they are marked
 * `exactInteger` and read from the answer's text. Amounts the spec types as strings (quotes, balances, splits) are
 * decimal strings.
 *
 * The spec types as strings what we answer as null when there is none (docs/webhooks.md): a webhook event's
 * `depositId` (an event about no deposit) and `deliveredAt` (not delivered yet), and the list's `nextCursor` (the
 * last page). The test reads a page where each is set.
 *
 * Left out: fields the spec types that these answers never carry (`intentOp.signedAuthorizations` and
 * `recipientSignedAuthorizations`: our quotes carry no EIP-7702 authorization; `elements[].swapOrigins`,
 * `mandate.swapDestinations`, `settlementContext.gasRefund` and `prefundAmount`: we quote no swap (docs/intents.md,
 * Cross-asset routes) and no gas refund;
 * the metadata account's `emissaryConfig`: only when the request sent one); the items of maps and arrays we answer
 * empty (`opGasParams`, `fees.protocolFees`, `executionTokensReceived`, `setupOps`); fields the spec gives no type
 * (`tokensReceived[].hasFulfilled`, `payload`, `preClaimOps`, `destinationOps`); the deposit processor's deposit
 * list, whose shape the spec does not show; and the legacy bundle routes (the 0.5.x client's own suite,
 * test/integration/legacy-bundles.test.ts, parses their answers: a bundle's signatures need a local chain).
 */
export interface SpecResponseField extends SpecField {
  /** a 256-bit value the spec types as a JSON number: an exact integer literal in the answer's text */
  exactInteger?: true;
}

const fields = (route: string, typed: Record<string, SpecType>, exact: string[] = []): SpecResponseField[] =>
  Object.entries(typed).map(([field, type]) => ({
    route,
    field,
    type,
    ...(exact.includes(field) ? { exactInteger: true as const } : {}),
  }));

/** An array of `[string, string]` pairs (Element, Mandate), under `at`. */
const pairs = (at: string): Record<string, SpecType> => ({
  [at]: 'array',
  [`${at}[]`]: 'array',
  [`${at}[].0`]: 'string',
  [`${at}[].1`]: 'string',
});

/** An account in `signedMetadata` (Resources → Account, metadata form), under `at`. */
const metadataAccount = (at: string): Record<string, SpecType> => ({
  [`${at}.address`]: 'string',
  [`${at}.accountType`]: 'string',
  [`${at}.setupOps`]: 'array',
  [`${at}.accountContext`]: 'object',
  [`${at}.requiredDelegations`]: 'object',
});

const element = 'intentOp.elements[]';
const mandate = `${element}.mandate`;
const settlementContext = `${mandate}.qualifier.settlementContext`;
const metadata = 'intentOp.signedMetadata';

/** Resources → Intent operation, Element, Mandate, signedMetadata; Intent cost. */
const quote: Record<string, SpecType> = {
  intentOp: 'object',
  'intentOp.sponsor': 'string',
  'intentOp.nonce': 'string',
  'intentOp.expires': 'string',
  'intentOp.elements': 'array',
  [`${element}.arbiter`]: 'string',
  [`${element}.chainId`]: 'string',
  ...pairs(`${element}.idsAndAmounts`),
  ...pairs(`${element}.spendTokens`),
  [mandate]: 'object',
  [`${mandate}.recipient`]: 'string',
  ...pairs(`${mandate}.tokenOut`),
  [`${mandate}.destinationChainId`]: 'string',
  [`${mandate}.fillDeadline`]: 'string',
  [`${mandate}.qualifier`]: 'object',
  [`${settlementContext}.settlementLayer`]: 'string',
  [`${settlementContext}.using7579`]: 'boolean',
  [`${settlementContext}.fundingMethod`]: 'string',
  [`${mandate}.qualifier.encodedVal`]: 'string',
  [`${mandate}.minGas`]: 'string',
  'intentOp.serverSignature': 'string',
  [metadata]: 'object',
  'intentOp.targetExecutionNonce': 'string',
  [`${metadata}.tokenPrices`]: 'object',
  [`${metadata}.tokenPrices.*`]: 'number',
  [`${metadata}.gasPrices`]: 'object',
  [`${metadata}.gasPrices.*`]: 'string',
  [`${metadata}.opGasParams`]: 'object',
  ...metadataAccount(`${metadata}.account`),
  ...metadataAccount(`${metadata}.recipient`),
  [`${metadata}.fees`]: 'object',
  [`${metadata}.fees.sponsorFee`]: 'object',
  [`${metadata}.fees.sponsorFee.relayer`]: 'number',
  [`${metadata}.fees.sponsorFee.protocol`]: 'number',
  [`${metadata}.fees.protocolFees`]: 'object',
  [`${metadata}.executionTokensReceived`]: 'array',
  intentCost: 'object',
  'intentCost.hasFulfilledAll': 'boolean',
  'intentCost.tokensSpent': 'object',
  'intentCost.tokensReceived': 'array',
  'intentCost.tokensReceived[].tokenAddress': 'string',
  'intentCost.tokensReceived[].amountSpent': 'string',
  'intentCost.tokensReceived[].targetAmount': 'string',
  'intentCost.tokensReceived[].fee': 'string',
  'intentCost.sponsorFee': 'object',
  'intentCost.sponsorFee.relayer': 'number',
  'intentCost.sponsorFee.protocol': 'number',
  'intentCost.gasCost': 'object',
  'intentCost.gasCost.originChains': 'array',
  'intentCost.gasCost.originChains[].chainId': 'number',
  'intentCost.gasCost.originChains[].gasUSD': 'number',
  'intentCost.gasCost.destination': 'object',
  'intentCost.gasCost.destination.chainId': 'number',
  'intentCost.gasCost.destination.gasUSD': 'number',
  'intentCost.gasCost.totalUSD': 'number',
  tokenRequirements: 'object',
};

/** Resources → Portfolio entry; the older host's `balance` is one string at both levels. */
const portfolio = (balance: 'split' | 'single'): Record<string, SpecType> => {
  const balanceAt = (at: string): Record<string, SpecType> =>
    balance === 'single'
      ? { [at]: 'string' }
      : { [at]: 'object', [`${at}.locked`]: 'string', [`${at}.unlocked`]: 'string' };
  return {
    portfolio: 'array',
    'portfolio[].tokenName': 'string',
    'portfolio[].tokenDecimals': 'number',
    ...balanceAt('portfolio[].balance'),
    'portfolio[].tokenChainBalance': 'array',
    'portfolio[].tokenChainBalance[].chainId': 'number',
    'portfolio[].tokenChainBalance[].tokenAddress': 'string',
    ...balanceAt('portfolio[].tokenChainBalance[].balance'),
  };
};

export const SPEC_RESPONSE_FIELDS: SpecResponseField[] = [
  ...fields('POST /deposit-processor/account/{address}/session', { message: 'string' }),
  ...fields('POST /deposit-processor/webhooks/test', { message: 'string', eventId: 'string' }),
  ...fields('GET /deposit-processor/webhooks/events', {
    events: 'array',
    'events[].eventId': 'string',
    'events[].type': 'string',
    'events[].time': 'string',
    'events[].status': 'string',
    'events[].attempts': 'number',
    'events[].depositId': 'string',
    'events[].deliveredAt': 'string',
    nextCursor: 'string',
  }),
  ...fields('POST /intents/route', quote),
  ...fields('POST /intent-operations', { result: 'object', 'result.id': 'string', 'result.status': 'string' }),
  ...fields('GET /intent-operation/{id}', {
    status: 'string',
    destinationChainId: 'integer',
    userAddress: 'string',
    claims: 'array',
    'claims[].chainId': 'number',
    'claims[].status': 'string',
    'claims[].claimTimestamp': 'number',
    'claims[].claimTransactionHash': 'string',
    fillTimestamp: 'number',
    fillTransactionHash: 'string',
  }),
  ...fields('POST /intents/split', { intents: 'array', 'intents[]': 'object', 'intents[].*': 'string' }),
  ...fields(
    'POST /withdrawals',
    {
      allocatorData: 'string',
      transferDetails: 'object',
      'transferDetails.id': 'number',
      'transferDetails.nonce': 'number',
      'transferDetails.expires': 'number',
      'transferDetails.recipients': 'array',
      'transferDetails.recipients[].claimant': 'number',
      'transferDetails.recipients[].amount': 'number',
    },
    [
      'transferDetails.id',
      'transferDetails.nonce',
      'transferDetails.recipients[].claimant',
      'transferDetails.recipients[].amount',
    ],
  ),
  ...fields(
    'POST /batch-withdrawals',
    {
      allocatorData: 'string',
      batchTransferDetails: 'object',
      'batchTransferDetails.nonce': 'number',
      'batchTransferDetails.expires': 'number',
      'batchTransferDetails.transfers': 'array',
      'batchTransferDetails.transfers[].id': 'number',
      'batchTransferDetails.transfers[].portions': 'array',
      'batchTransferDetails.transfers[].portions[].claimant': 'number',
      'batchTransferDetails.transfers[].portions[].amount': 'number',
    },
    [
      'batchTransferDetails.nonce',
      'batchTransferDetails.transfers[].id',
      'batchTransferDetails.transfers[].portions[].claimant',
      'batchTransferDetails.transfers[].portions[].amount',
    ],
  ),
  ...fields('GET /accounts/{userAddress}/portfolio', portfolio('split')),
  ...fields('GET /legacy/accounts/{userAddress}/portfolio', portfolio('single')),
];
