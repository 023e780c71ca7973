import { ApplicationFailure } from '@temporalio/activity';
import { encodeFunctionData, erc20Abi, getAddress, parseAbi, type PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/registry';
import { splitLockId } from '../chains/lock-tag';
import type { IntentOp, Submission } from '../intents/types';
import type { Logger } from '../logger';
import type {
  ClaimAuthorizationView,
  FeedIntent,
  FillFacts,
  RelayActivities,
  SignedOrDone,
} from '../../workflows/relayer/contract';
import { feesBySymbol, feesInWei } from '../../workflows/relayer/relay-state';
import { claimCall, claimedAlready } from './claims';
import type { RelayerBotConfig } from './config';
import type { RelayerMetrics } from './metrics';
import { RelayerApi, ServiceError } from './service';
import { Nonces, sendSigned, signCall } from './transactions';

export interface RelayDeps {
  config: RelayerBotConfig;
  account: PrivateKeyAccount;
  client(chainId: number): PublicClient;
  api: RelayerApi;
  registry: ChainRegistry;
  metrics: RelayerMetrics;
  log: Logger;
}

const fillerAbi = parseAbi([
  'event Filled(uint256 indexed nonce, address indexed recipient, address token, uint256 amount)',
  'function fillTokenOut(uint256 nonce, address recipient, uint256[2][] tokenOut)',
]);

const opOf = (intent: FeedIntent) => intent.operation as IntentOp;

/** The relayer's activities (workflows/relayer/contract.ts): chain and API I/O, each safe to run twice. */
export function createRelayActivities(deps: RelayDeps): RelayActivities {
  const { config, account } = deps;
  const nonces = new Nonces(config.stepSeconds * 2000);
  const chain = (chainId: number) => {
    const c = config.chains.find((x) => x.chainId === chainId);
    if (!c) throw ApplicationFailure.nonRetryable(`chain ${chainId} is not one of the relayer's (RPC_URL_${chainId})`);
    return c;
  };
  const filler = (chainId: number) => {
    const f = chain(chainId).filler;
    if (!f) throw ApplicationFailure.nonRetryable(`no settlement contract on ${chainId} (RELAYER_FILLER_${chainId})`);
    return f;
  };

  /** The chains of the intent this relayer has no RPC for (or, for the fill's, no filler), as a reason to skip it. */
  function unsupportedChains(intent: FeedIntent): string | null {
    const known = (chainId: number) => config.chains.some((c) => c.chainId === chainId);
    const dest = config.chains.find((c) => c.chainId === intent.fill.chainId);
    if (!dest?.filler)
      return `no settlement contract on chain ${intent.fill.chainId} (RELAYER_FILLER_${intent.fill.chainId})`;
    const origins = opOf(intent).elements.map((e) => Number(e.chainId));
    const missing = origins.filter((id) => !known(id));
    return missing.length ? `no RPC_URL_<chainId> for the origin chains ${missing.join(', ')}` : null;
  }

  /** The claim authorization; one the service refuses for good (expired, released, unknown) ends the intent. */
  async function authorization(intentId: string) {
    try {
      return await deps.api.claimAuthorization(intentId);
    } catch (e) {
      if (e instanceof ServiceError && (e.status === 409 || e.status === 404))
        throw ApplicationFailure.nonRetryable(e.message);
      throw e;
    }
  }

  /**
   * A fill of this intent mined within the lookback, and who sent it: one of ours whatever it paid (it was built from
   * the mandate), else another relayer's only if its transaction paid the mandate's recipient every token in full,
   * as the service counts a fill; a `Filled` event anyone can emit for dust does not keep this relayer away.
   */
  async function findFill(intent: FeedIntent): Promise<FillFacts['filled']> {
    const client = deps.client(intent.fill.chainId);
    const latest = await client.getBlockNumber();
    const logs = await client.getLogs({
      address: filler(intent.fill.chainId),
      event: fillerAbi[0],
      args: { nonce: BigInt(intent.id) },
      fromBlock: latest > config.lookbackBlocks ? latest - config.lookbackBlocks : 0n,
      toBlock: latest,
    });
    const recipient = getAddress(intent.fill.recipient);
    for (const hash of new Set(logs.map((l) => l.transactionHash))) {
      const tx = await client.getTransaction({ hash });
      if (getAddress(tx.from) === account.address) return { by: 'us', tx: hash };
      const paid = (token: string) =>
        logs
          .filter((l) => l.transactionHash === hash && getAddress(l.args.recipient!) === recipient)
          .filter((l) => getAddress(l.args.token!) === getAddress(token))
          .reduce((sum, l) => sum + l.args.amount!, 0n);
      if (intent.fill.tokens.every((t) => paid(t.token) >= BigInt(t.amount))) return { by: 'other', tx: hash };
    }
    return null;
  }

  const fillCall = (intent: FeedIntent) => ({
    to: filler(intent.fill.chainId),
    data: encodeFunctionData({
      abi: fillerAbi,
      functionName: 'fillTokenOut',
      args: [
        BigInt(intent.id),
        getAddress(intent.fill.recipient),
        opOf(intent).elements[0].mandate.tokenOut.map(([id, amount]) => [BigInt(id), BigInt(amount)] as const),
      ],
    }),
  });

  const symbolOf = (chainId: number, token: string) => deps.registry.token(chainId, token)?.symbol ?? token;

  /** What the claims of `elements` (the indices of origin elements; all by default) pay less what the fill pays, per symbol. */
  function fees(intent: FeedIntent, elements?: number[]): Record<string, string> {
    const claimed = opOf(intent)
      .elements.filter((_, i) => !elements || elements.includes(i))
      .flatMap((e) =>
        e.idsAndAmounts.map(([id, amount]) => ({ symbol: symbolOf(Number(e.chainId), splitLockId(id).token), amount })),
      );
    const paid = intent.fill.tokens.map((t) => ({ symbol: symbolOf(intent.fill.chainId, t.token), amount: t.amount }));
    return feesBySymbol(claimed, paid);
  }

  /** Wei for one smallest unit of each priced symbol, ×10^18, by the token's decimals in the registry. */
  function weiPerUnit(intent: FeedIntent): Record<string, string> {
    const out: Record<string, string> = {};
    const tokens = [
      ...opOf(intent).elements.flatMap((e) =>
        e.idsAndAmounts.map(([id]) => deps.registry.token(Number(e.chainId), splitLockId(id).token)),
      ),
      ...intent.fill.tokens.map((t) => deps.registry.token(intent.fill.chainId, t.token)),
    ];
    for (const t of tokens) {
      const price = t && config.prices[t.symbol];
      if (t && price !== undefined) out[t.symbol] = ((price * 10n ** 18n) / 10n ** BigInt(t.decimals)).toString();
    }
    return out;
  }

  return {
    async readFillFacts(intent) {
      const unsupported = unsupportedChains(intent);
      if (unsupported)
        return { unsupported, now: 0, fillDeadline: 0, inventory: [], feesWei: null, gasWei: '0', filled: null };
      const client = deps.client(intent.fill.chainId);
      const [block, inventory, filled] = await Promise.all([
        client.getBlock(),
        Promise.all(
          intent.fill.tokens.map(async ({ token, amount }) => ({
            token,
            needed: amount,
            held: (
              await client.readContract({
                address: getAddress(token),
                abi: erc20Abi,
                functionName: 'balanceOf',
                args: [account.address],
              })
            ).toString(),
          })),
        ),
        findFill(intent),
      ]);
      // The fill's gas by estimate where it can be estimated (it cannot without the inventory), the claims' by setting.
      const fillGas = await client
        .estimateGas({ account: account.address, ...fillCall(intent) })
        .catch(() => config.claimGas);
      let gasWei = fillGas * (await client.getGasPrice());
      for (const e of opOf(intent).elements)
        gasWei += config.claimGas * (await deps.client(Number(e.chainId)).getGasPrice());
      return {
        unsupported: null,
        now: Number(block.timestamp),
        fillDeadline: intent.fill.fillDeadline,
        inventory,
        feesWei: feesInWei(fees(intent), weiPerUnit(intent)),
        gasWei: gasWei.toString(),
        filled,
      };
    },

    async signFill(intent): Promise<SignedOrDone> {
      const filled = await findFill(intent);
      if (filled?.by === 'us') return { done: filled.tx };
      if (filled)
        throw ApplicationFailure.nonRetryable(`intent ${intent.id} was filled by another relayer (${filled.tx})`);
      const chainId = intent.fill.chainId;
      const client = deps.client(chainId);
      // A fill that cannot be sent (it would revert) is tried again, but never past the deadline.
      if ((await client.getBlock()).timestamp >= BigInt(intent.fill.fillDeadline))
        throw ApplicationFailure.nonRetryable(`the fill deadline ${intent.fill.fillDeadline} has passed`);
      const signed = await nonces.take(
        chainId,
        () => client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
        (nonce) => signCall(client, account, chainId, nonce, fillCall(intent)),
      );
      return { signed };
    },

    async sendSigned(tx, step) {
      const sent = await sendSigned(deps.client(tx.chainId), tx, step, config.stepSeconds * 800);
      if (sent.status !== 'replaced') {
        (step === 'fill' ? deps.metrics.fills : deps.metrics.claims).inc({ chain: tx.chainId, status: sent.status });
        deps.metrics.gasSpentWei.inc({ chain: tx.chainId }, Number(sent.gasWei));
      }
      deps.log.info({ step, chainId: tx.chainId, tx: tx.hash, nonce: tx.nonce, status: sent.status }, 'sent');
      return sent;
    },

    async awaitProven(intent, fillTx): Promise<ClaimAuthorizationView> {
      const intentId = intent.id;
      const auth = await authorization(intentId);
      // Proven: the service attests the fill for each element whose arbiter is one it attests to (ours); it
      // attests none before its indexer has proven the fill at depth.
      if (!auth.elements.some((e) => e.fillAttestation))
        throw ApplicationFailure.retryable(`the service has not proven the fill ${fillTx} of ${intentId} yet`);
      const other = auth.elements.find(
        (e) => e.fillAttestation && getAddress(e.fillAttestation.relayer) !== account.address,
      );
      if (other)
        throw ApplicationFailure.nonRetryable(`the service attests ${other.fillAttestation!.relayer}'s fill, not ours`);
      return {
        elements: auth.elements.map((e) => ({
          chainId: e.chainId,
          fundingMethod: e.fundingMethod,
          allocatorData: e.allocatorData,
          attested: e.fillAttestation !== null,
        })),
      };
    },

    async signClaim(intent, index): Promise<SignedOrDone> {
      const op = opOf(intent);
      const element = (await authorization(intent.id)).elements[index];
      const client = deps.client(element.chainId);
      const done = await claimedAlready(client, op, element, config.lookbackBlocks);
      if (done) return { done };
      const call = claimCall(op, intent.signatures as Submission, element, index);
      const signed = await nonces.take(
        element.chainId,
        () => client.getTransactionCount({ address: account.address, blockTag: 'pending' }),
        (nonce) => signCall(client, account, element.chainId, nonce, call),
      );
      return { signed };
    },

    async recordOutcome(intent, result) {
      deps.metrics.intents.inc({ outcome: result.outcome });
      const earned = result.outcome === 'claimed' ? fees(intent, result.elements) : {};
      for (const [symbol, amount] of Object.entries(earned))
        if (BigInt(amount) > 0n) deps.metrics.feesEarned.inc({ symbol }, Number(amount));
      // The outcome line, on stdout: what an operator (and the walk-through) reads of each intent.
      console.log(
        JSON.stringify({ intentId: intent.id, ...result, ...(result.outcome === 'claimed' ? { earned } : {}) }),
      );
    },
  };
}
