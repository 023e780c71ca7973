import { project } from '../http/project';
import { defineRoute } from '../http/route';
import { sponsorshipTotals } from './sponsorship-store';

const decimal = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' } as const;

const totals = {
  type: 'object',
  required: ['entitled', 'intents', 'usd', 'tokens'],
  properties: {
    entitled: { type: 'boolean', description: 'whether quotes of this project may ask for sponsorSettings' },
    intents: { type: 'integer', description: 'submitted intents whose fees were (partly) sponsored' },
    usd: { ...decimal, description: 'sponsored fees in USD, as quoted' },
    tokens: {
      type: 'array',
      items: {
        type: 'object',
        required: ['chainId', 'tokenAddress', 'symbol', 'decimals', 'amount'],
        properties: {
          chainId: { type: 'integer' },
          tokenAddress: { type: 'string' },
          symbol: { type: 'string' },
          decimals: { type: 'integer' },
          amount: decimal,
        },
      },
      description: 'per requested token (destination chain): the fee amount the user did not pay, in token units',
    },
  },
} as const;

/** Every version: what the key's project sponsored, recorded once per submitted intent. */
export const sponsorshipRoutes = [
  defineRoute({
    method: 'get',
    path: '/sponsorship',
    summary:
      "The project's fee sponsorship: its entitlement and the fees it sponsored on submitted intents (USD and per token)",
    tags: ['intents'],
    auth: 'apiKey',
    responses: { 200: { description: 'sponsored totals', schema: totals } },
    async handler(ctx, _input, s) {
      return { status: 200, body: await sponsorshipTotals(s.db, project(ctx)) };
    },
  }),
];
