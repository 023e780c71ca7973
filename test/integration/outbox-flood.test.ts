import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { waitFor } from '../../src/dev/processes';
import { lifecycleStarts } from '../../src/intents/store';
import { queueSignals } from '../../src/outbox/store';
import { ARB_USDC, TX } from '../support/fixtures';
import { Api, call, fundLocked } from '../support/harness';
import { LocalChain, SmartAccount, smartAccount } from '../support/chain';
import { signAsClient, startLegacyHost, stopLegacyHost } from '../support/legacy-client';

let api: Api;
let chain: LocalChain;
let client: any; // eslint-disable-line @typescript-eslint/no-explicit-any
const BEEF = '0x000000000000000000000000000000000000bEEF';

// It counts the signals a lifecycle received: on a worker of its own whose sweeper leaves a row to the API that
// queued it for 10 s (not the run's 1 s), so a loaded machine's slow delivery is never repeated by the sweeper.
beforeAll(
  async () =>
    ({ api, chain, client } = await startLegacyHost({ ownDatabase: true, settings: { OUTBOX_GRACE_SECONDS: '10' } })),
);
afterAll(() => stopLegacyHost({ api, chain }));

async function submitBundle(): Promise<string> {
  const account: SmartAccount = smartAccount(chain, privateKeyToAccount(generatePrivateKey()));
  await fundLocked(api, account.address, '5000000');
  const intent = {
    targetChainId: 42161,
    tokenTransfers: [{ tokenAddress: ARB_USDC, amount: 1_000_000n }],
    targetAccount: account.address,
    targetExecutions: [{ to: BEEF, value: 0n, data: '0x1234' }],
  };
  const orderPath = await client.getOrderPath(intent, account.address);
  const signedOrderBundle = await signAsClient(orderPath, intent.targetExecutions, account.owner);
  const [result] = await client.postSignedOrderBundle([{ signedOrderBundle, initCode: account.initCode }]);
  return result.bundleId.toString();
}

const preconfirm = (bundleId: string, chainId: number) =>
  call(api, 'POST', `/legacy/bundles/${bundleId}/events`, {
    body: { type: 'FillPreconfirmation', chainId, txHash: TX(7) },
  });

/**
 * The preconfirmation signals the bundle's lifecycle received in all its runs: a flood makes it continue as new (its
 * run's history grows long), so the chain is followed from the first run to the one running now.
 */
async function signalsReceived(bundleId: string): Promise<number> {
  const workflowId = `bundle-${bundleId}`;
  let runId =
    (await api.temporal.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.firstRunId || undefined;
  let received = 0;
  while (runId) {
    const events = (await api.temporal.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    received += events.filter(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'preconfirmation',
    ).length;
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId || undefined;
  }
  return received;
}

test('21.4 a flood of preconfirmations for one bundle queues one signal per (bundle, chain), and the sweeper keeps delivering others', async () => {
  const flooded = await submitBundle();
  const other = await submitBundle();
  // 2,400 calls from an API key, 40 at a time, over two chains: more than the 1,000 signals a run accepts on the tests'
  // dev server (Temporal's 10,000, lowered in test/support/global-setup.ts), and than the 1,000 rows a sweep takes.
  for (let i = 0; i < 2400; i += 40) {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, j) => preconfirm(flooded, (i + j) % 2 ? 8453 : 42161)),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
  }
  // Another bundle's event whose API died before delivering it: only the sweeper can deliver it.
  const start = (await lifecycleStarts(api.db.manager, [other], api.services.config.intents.fillGraceSeconds)).get(
    other,
  )!;
  await queueSignals(api.db.manager, [
    { workflowId: start.workflowId, signal: 'preconfirmation', payload: { chainId: 42161 }, start },
  ]);
  for (const bundleId of [other, flooded]) {
    // PRECONFIRMED is PENDING on the legacy wire: the record tells them apart.
    await waitFor(
      `bundle ${bundleId} PRECONFIRMED`,
      async () =>
        (await api.db.query('SELECT status FROM bundles WHERE id = $1', [bundleId]))[0].status === 'PRECONFIRMED',
      30_000,
    );
  }
  expect(await signalsReceived(flooded)).toBeLessThanOrEqual(2);
  expect(
    Number(
      (
        await api.db.query('SELECT count(*)::int AS n FROM signal_outbox WHERE workflow_id = $1', [`bundle-${flooded}`])
      )[0].n,
    ),
  ).toBe(0);
  // A chain the registry does not serve is refused, so the keys stay bounded by the chains this deployment serves.
  expect((await preconfirm(flooded, 999_999)).status).toBe(400);
}, 240_000);
