/**
 * Moving from 2026-01.alps to 2026-04.blanc, one line per change (served at GET /versions; docs/api.md, Migration
 * from alps to blanc).
 */
export const MIGRATION: { alps: string; blanc: string }[] = [
  { alps: 'POST /intents/route', blanc: 'POST /quotes (a ranked `routes` array; routes[0] is recommended)' },
  { alps: 'POST /intents/cost', blanc: 'each route of POST /quotes carries its `cost`' },
  {
    alps: 'POST /intent-operations {signedIntentOp}',
    blanc: 'POST /intents {intentId, signatures: {origin[], destination}} → {intentId}',
  },
  { alps: 'GET /intent-operation/{id}', blanc: 'GET /intents/{id}' },
  { alps: 'POST /intents/split', blanc: 'POST /intents/splits' },
  { alps: 'POST /withdrawals, POST /batch-withdrawals', blanc: 'none (the resource-lock surface is alps-only)' },
  { alps: 'options.topupCompact, account.emissaryConfig', blanc: 'none (refused with VALIDATION_ERROR)' },
  {
    alps: 'intentOp + intentCost',
    blanc: 'route.signData {origin[], destination} (EIP-712, sign as served) + route.cost {input, output, fees}',
  },
  { alps: 'destinationGasUnits', blanc: 'destinationGasLimit' },
  {
    alps: 'sponsorSettings.gasSponsored / bridgeFeesSponsored / swapFeesSponsored',
    blanc: 'sponsorSettings.gas / bridgeFees / swapFees',
  },
  { alps: 'userAddress', blanc: 'accountAddress' },
  { alps: 'account.mockSignature', blanc: 'account.mockSignatures (map of CAIP-2 chain id to signature)' },
  { alps: "accountType 'SMART_ACCOUNT' / 'smartAccount'", blanc: "accountType 'ERC7579'" },
  {
    alps: 'accountAccessList [{chainId, tokenAddress}]',
    blanc: 'accountAccessList {chainIds, tokens, chainTokens, exclude}',
  },
  {
    alps: 'chain ids as numbers (1, "8453")',
    blanc: 'CAIP-2 strings ("eip155:1") in bodies; path parameters stay numeric',
  },
  { alps: 'timestamps as digit strings', blanc: 'integer Unix seconds' },
  { alps: 'status PRECONFIRMED', blanc: 'reported as PENDING' },
  {
    alps: 'portfolio tokenName / tokenChainBalance / tokenAddress / tokenDecimals',
    blanc: 'symbol / chains / address / decimals',
  },
  {
    alps: 'portfolio ?chainIds=1,10&tokens=1:0xA',
    blanc: '?chainIds=eip155:1&chainIds=eip155:10&tokens=eip155:1:0xA (repeated parameters)',
  },
  { alps: 'errors {message, errors[], traceId}', blanc: 'errors {code, message, traceId, details?}' },
];
