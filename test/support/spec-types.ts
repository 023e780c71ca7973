/**
 * Every request field whose type the spec (service-api.md, Endpoints and Resources) states, as the spec states it:
 * route, field (dots into objects, `[]` into the first item of an array), and type. test/integration/spec-types.test.ts
 * sends each route a body valid in every other respect with that field in the spec's type. Kept here because the
 * project reads nothing from the spec's folder at test time: a field added to the spec is added here.
 *
 * Left out, because the spec's text and the published clients disagree and the clients are what must work:
 * `POST /bundles` `userOp` in the spec lists a packed v0.7 operation (`initCode`, `accountGasLimits`, `gasFees`,
 * `paymasterAndData`), while the 0.5.4 client sends viem's unpacked one (docs/api.md, Legacy host).
 */
export type SpecType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

export interface SpecField {
  route: string;
  field: string;
  type: SpecType;
}

const fields = (route: string, typed: Record<string, SpecType>): SpecField[] =>
  Object.entries(typed).map(([field, type]) => ({ route, field, type }));

/** The account object of the intent routes (Resources → Account), under `at`. */
const account = (at: string): Record<string, SpecType> => ({
  [`${at}.address`]: 'string',
  [`${at}.accountType`]: 'string',
  [`${at}.setupOps`]: 'array',
  [`${at}.setupOps[].to`]: 'string',
  [`${at}.setupOps[].data`]: 'string',
  [`${at}.emissaryConfig`]: 'object',
  [`${at}.emissaryConfig.validatorAddress`]: 'string',
  [`${at}.emissaryConfig.emissaryAddress`]: 'string',
  [`${at}.emissaryConfig.emissaryEnable.allocatorSig`]: 'string',
  [`${at}.emissaryConfig.emissaryEnable.userSig`]: 'string',
  [`${at}.emissaryConfig.settings.allocator`]: 'string',
  [`${at}.delegations`]: 'object',
});

/** POST /intents/route's request table; POST /intents/cost takes the same fields. */
const route: Record<string, SpecType> = {
  destinationChainId: 'number',
  tokenRequests: 'array',
  'tokenRequests[].tokenAddress': 'string',
  'tokenRequests[].amount': 'string',
  ...account('account'),
  destinationExecutions: 'array',
  'destinationExecutions[].to': 'string',
  'destinationExecutions[].value': 'string',
  'destinationExecutions[].data': 'string',
  destinationGasUnits: 'integer',
  accountAccessList: 'object',
  'accountAccessList.chainIds': 'array',
  'accountAccessList.chainIds[]': 'number',
  'accountAccessList.tokens': 'array',
  'accountAccessList.tokens[]': 'string',
  'accountAccessList.chainTokens': 'object',
  'accountAccessList.exclude': 'object',
  'accountAccessList.exclude.chainIds': 'array',
  'accountAccessList.exclude.tokens': 'array',
  'accountAccessList.exclude.chainTokens': 'object',
  ...account('recipient'),
  options: 'object',
  'options.topupCompact': 'boolean',
  'options.settlementLayers': 'array',
  'options.settlementLayers[]': 'string',
  'options.sponsorSettings': 'object',
  'options.sponsorSettings.gasSponsored': 'boolean',
  'options.sponsorSettings.bridgeFeesSponsored': 'boolean',
  'options.sponsorSettings.swapFeesSponsored': 'boolean',
  'options.feeToken': 'string',
};

export const SPEC_REQUEST_FIELDS: SpecField[] = [
  ...fields('POST /deposit-processor/account/{address}/session', {
    sessionDetails: 'object',
    'sessionDetails.hashesAndChainIds': 'array',
    'sessionDetails.hashesAndChainIds[].chainId': 'number',
    'sessionDetails.hashesAndChainIds[].sessionDigest': 'string',
    'sessionDetails.signature': 'string',
  }),
  ...fields('POST /deposit-processor/webhooks/test', { type: 'string' }),
  ...fields('POST /intents/route', route),
  ...fields('POST /intents/cost', route),
  ...fields('POST /intent-operations', {
    signedIntentOp: 'object',
    'signedIntentOp.destinationSignature': 'string',
    'signedIntentOp.originSignatures': 'array',
    'signedIntentOp.originSignatures[]': 'string',
    'signedIntentOp.targetExecutionSignature': 'string',
    'signedIntentOp.options.dryRun': 'boolean',
  }),
  ...fields('POST /intents/split', {
    chainId: 'integer',
    tokens: 'object',
    'tokens.*': 'string',
    settlementLayers: 'array',
    'settlementLayers[]': 'string',
  }),
  ...fields('POST /withdrawals', {
    account: 'string',
    chainId: 'number',
    tokenAddress: 'string',
    amount: 'integer',
    recipient: 'string',
  }),
  ...fields('POST /batch-withdrawals', {
    account: 'string',
    chainId: 'number',
    transfers: 'array',
    'transfers[].recipient': 'string',
    'transfers[].tokenAddress': 'string',
    'transfers[].amount': 'number',
  }),
  ...fields('POST /legacy/bundles', {
    bundles: 'array',
    'bundles[].signedOrderBundle.sponsor': 'string',
    'bundles[].signedOrderBundle.nonce': 'string',
    'bundles[].signedOrderBundle.expires': 'string',
    'bundles[].signedOrderBundle.segments': 'array',
    'bundles[].signedOrderBundle.targetSignature': 'string',
    'bundles[].signedOrderBundle.originSignatures': 'array',
    'bundles[].signedOrderBundle.originSignatures[]': 'string',
    'bundles[].initCode': 'string',
  }),
  ...fields('POST /legacy/accounts/{userAddress}/bundles/cost', {
    targetChainId: 'number',
    tokenTransfers: 'array',
    'tokenTransfers[].tokenAddress': 'string',
    'tokenTransfers[].amount': 'string',
    targetGasUnits: 'string',
    'userOp.callGasLimit': 'string',
    'userOp.verificationGasLimit': 'string',
    'userOp.preVerificationGas': 'string',
    accountAccessList: 'array',
    'accountAccessList[].chainId': 'number',
    'accountAccessList[].tokenAddress': 'string',
  }),
  ...fields('POST /legacy/accounts/{userAddress}/bundles/path', {
    targetChainId: 'number',
    tokenTransfers: 'array',
    targetAccount: 'string',
    targetExecutions: 'array',
    'targetExecutions[].to': 'string',
    'targetExecutions[].value': 'string',
    'targetExecutions[].data': 'string',
    'userOp.sender': 'string',
    'userOp.nonce': 'string',
    'userOp.callData': 'string',
    'userOp.callGasLimit': 'string',
    'userOp.verificationGasLimit': 'string',
    'userOp.preVerificationGas': 'string',
    omniLock: 'boolean',
    targetGasUnits: 'string',
    lockMode: 'string',
    accountAccessList: 'array',
  }),
  ...fields('POST /legacy/bundles/{bundleId}/events', { type: 'string', chainId: 'number', txHash: 'string' }),
];
