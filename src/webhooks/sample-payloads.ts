import { randomBytes, randomUUID } from 'node:crypto';
import type { WebhookType } from './types';

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const USDC_BASE = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const USDC_ARBITRUM = '0xaf88d065e77c8cc2239327c5edb3a432268e5831';

/**
 * Realistic data for POST /webhooks/test, one shape per type (docs/webhooks.md, Payloads). Addresses are lowercase
 * as in every webhook; amounts are decimal strings in the token's smallest unit; chains are CAIP-2.
 */
export function samplePayload(type: WebhookType): { depositId: string | null; payload: Record<string, unknown> } {
  const depositId = `dep_test_${randomBytes(8).toString('hex')}`;
  const account = hex(20);
  const deposit = {
    transactionHash: hex(32),
    chain: 'eip155:8453',
    asset: USDC_BASE,
    amount: '25000000',
    sender: hex(20),
  };
  const depositByToken = {
    transactionHash: deposit.transactionHash,
    chain: deposit.chain,
    token: USDC_BASE,
    amount: deposit.amount,
    sender: deposit.sender,
  };
  const payloads: Record<WebhookType, () => Record<string, unknown>> = {
    'deposit-received': () => ({
      depositId,
      chain: deposit.chain,
      token: USDC_BASE,
      amount: deposit.amount,
      account,
      transactionHash: deposit.transactionHash,
      sender: deposit.sender,
    }),
    'bridge-started': () => ({
      depositId,
      account,
      source: { chain: deposit.chain, asset: USDC_BASE, amount: deposit.amount },
      destination: { chain: 'eip155:42161', asset: USDC_ARBITRUM, amount: '24950000' },
      deposit,
      settlementLayer: 'across',
      estimatedFillTime: { seconds: 12 },
    }),
    'bridge-delayed': () => ({
      depositId,
      account,
      reason: 'The fill deadline passed without a fill; a refund is expected',
      estimatedDelayTime: { seconds: 900 },
      deposit: depositByToken,
    }),
    'bridge-complete': () => ({
      depositId,
      account,
      deposit,
      source: { transactionHash: hex(32), chain: deposit.chain, amount: deposit.amount, asset: USDC_BASE },
      destination: {
        transactionHash: hex(32),
        chain: 'eip155:42161',
        amount: '24950000',
        asset: USDC_ARBITRUM,
        logIndex: 7,
      },
      settlementLayer: 'across',
    }),
    'bridge-failed': () => ({
      depositId,
      account,
      errorCode: 'BRIDGE-1',
      message: 'No relayer filled the intent',
      deposit: depositByToken,
    }),
    'deposit-rejected': () => ({
      depositId,
      account,
      errorCode: 'BALANCE-4',
      message: 'Deposit is below the minimum of 1 USD',
      limits: { minAmountUsd: '1' },
      deposit: { ...depositByToken, amount: '500000' },
    }),
    'deposit-voided': () => ({
      depositId,
      account,
      errorCode: 'REORG-1',
      message: "The deposit's transaction was dropped from the chain by a reorganization: no funds arrived",
      intentId: null,
      deposit: depositByToken,
    }),
    'deposit-delayed': () => ({
      depositId,
      account,
      reason: 'Sponsorship cap reached for this intent',
      errorCode: 'SPONSORSHIP-1',
      limitKey: 'gasPerIntentUSD',
      capUsd: '0.50',
      coverageUsd: '0.72',
      deposit: depositByToken,
    }),
    'deposit-refunded': () => ({
      depositId,
      account,
      deposit,
      refund: {
        transactionHash: hex(32),
        chain: deposit.chain,
        asset: USDC_BASE,
        amount: '24990000',
        recipient: deposit.sender,
      },
    }),
    'onramp-order': () => {
      const orderUuid = randomBytes(16)
        .toString('hex')
        .replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/, '$1-$2-$3-$4-$5');
      return {
        orderId: `ord_${randomBytes(6).toString('hex')}`,
        orderUuid,
        account,
        source: 'onramp',
        status: 'completed',
        rawStatus: 'order_completed',
        terminal: true,
        token: USDC_BASE,
        cryptoAmount: '25.00',
        fiat: { currency: 'EUR', amount: '23.50', amountPlusFees: '24.40', feeUsd: '0.97' },
        transactionId: deposit.transactionHash,
        method: 'card',
        exchange: null,
      };
    },
    'verification-updated': () => ({
      verificationId: randomUUID(),
      customerId: `cus_test_${randomBytes(4).toString('hex')}`,
      currency: 'EUR',
      provider: 'sandbox',
      status: 'completed',
      inReview: false,
      stale: false,
      updatedAt: new Date().toISOString(),
    }),
  };
  const aboutDeposit = !['onramp-order', 'verification-updated'].includes(type);
  return { depositId: aboutDeposit ? depositId : null, payload: payloads[type]() };
}
