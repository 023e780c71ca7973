import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stopProcess, waitFor } from '../../src/dev/processes';
import { createProject } from '../../src/projects/api-keys';
import { withdrawalRequestTypedData } from '../../src/withdrawals/sponsor-signature';
import {
  ARB_USDC,
  BASE_USDC,
  blockAt,
  claimEvent,
  eventId,
  fillEvent,
  getCompactTypedData,
  lockedSnapshot,
  TX,
} from '../support/fixtures';
import {
  Api,
  call,
  fundedAccount,
  ingest,
  killWorkers,
  spawnApi,
  startApi,
  startWorker,
  until,
} from '../support/harness';
import { filledPastItsDelay, reaches, signedQuote, statusOf } from '../support/intents';
import { activeReservations } from '../support/reservations';
import { queueSignals } from '../../src/outbox/store';
import { lifecycleStarts } from '../../src/intents/store';

let api: Api;

beforeAll(async () => {
  // It kills and restarts workers: its own, never the lane's the other suites run on.
  api = await startApi({ ownDatabase: true });
  await startWorker(api.env);
});
afterAll(() => api.close());

const funded = (locked = '5000000', block = '1') => fundedAccount(api, locked, { blockNumber: block });

/**
 * Submits a fresh quote to an API process that dies right after committing the intent, before its lifecycle start:
 * the request gets no answer. Then runs `then` with the intent; the process is killed in any case.
 */
async function submitToDyingApi(then: (id: string, signedIntentOp: unknown) => Promise<void>): Promise<void> {
  const { child: faulty, url } = await spawnApi({ ...api.env.env, FAULT_INJECTION: 'submit-after-commit' });
  try {
    const { id, signedIntentOp } = await signedQuote({ ...api, url }, await funded());
    await expect(
      fetch(`${url}/intent-operations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': api.apiKey },
        body: JSON.stringify({ signedIntentOp }),
      }),
    ).rejects.toThrow();
    await then(id, signedIntentOp);
  } finally {
    await stopProcess(faulty, 'SIGKILL');
  }
}

/** Whether the history holds a signal named `name`. */
const signalled = (
  history: { events?: { workflowExecutionSignaledEventAttributes?: { signalName?: string | null } | null }[] | null },
  name: string,
) => (history.events ?? []).some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === name);

const queuedStarts = async (id: string) =>
  (await api.db.query('SELECT count(*)::int AS n FROM workflow_outbox WHERE workflow_id = $1', [`intent-${id}`]))[0].n;

test(
  'an API killed between the submit commit and the workflow start: the sweeper starts the lifecycle',
  () =>
    submitToDyingApi(async (id, signedIntentOp) => {
      expect(await statusOf(api, id)).toBe('PENDING');
      expect(await activeReservations(api, id)).toBe(1);
      const description = await until(
        'lifecycle started by the sweeper',
        async () =>
          api.temporal.workflow
            .getHandle(`intent-${id}`)
            .describe()
            .catch(() => undefined),
        30_000,
      );
      expect(description.status.name).toBe('RUNNING');
      expect(description.type).toBe('intentLifecycle');
      expect(await queuedStarts(id)).toBe(0);
      // The client retries the lost request: the same answer, still one reservation and one workflow.
      const retry = await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } });
      expect(retry.json.result).toEqual({ id, status: 'PENDING' });
      expect(await activeReservations(api, id)).toBe(1);
      await ingest(api, [fillEvent(id, TX(1)), claimEvent(id, TX(2), { timestamp: 2, blockNumber: '7' })]);
      await reaches(api, id, 'COMPLETED');
    }),
  90_000,
);

test(
  'an event for an intent whose lifecycle start is still queued starts the lifecycle with its signal and is delivered at once',
  () =>
    submitToDyingApi(async (id) => {
      // At once, well inside the sweeper's grace (1 s in tests): the fill, queued with its lifecycle's start as the
      // indexer route queues it, is delivered as signal-with-start, which performs the queued start.
      const start = (await lifecycleStarts(api.db.manager, [id], api.services.config.intents.fillGraceSeconds)).get(
        id,
      )!;
      const [fill] = await queueSignals(api.db.manager, [
        {
          workflowId: `intent-${id}`,
          signal: 'fill',
          payload: { chainId: 42161, transactionHash: TX(3), timestamp: 3 },
          start,
        },
      ]);
      expect(await api.services.outbox.deliver([fill])).toBe(1);
      expect((await api.temporal.workflow.getHandle(`intent-${id}`).describe()).status.name).toBe('RUNNING');
      expect(await queuedStarts(id)).toBe(0);
      expect((await api.db.query('SELECT count(*)::int AS n FROM signal_outbox WHERE id = $1', [fill.id]))[0].n).toBe(
        0,
      );
      await reaches(api, id, 'FILLED');
    }),
  90_000,
);

test('an API killed after committing a batch and before signalling: the sweeper delivers its lifecycle events', async () => {
  const id = await filledPastItsDelay(api, await funded());
  const { child: faulty, port } = await spawnApi({ ...api.env.env, FAULT_INJECTION: 'ingest-after-commit' });
  try {
    const events = [claimEvent(id, TX(7), { blockNumber: '2' })];
    await expect(
      fetch(`http://127.0.0.1:${port}/indexer/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-indexer-key': api.indexerKey },
        body: JSON.stringify({ events }),
      }),
    ).rejects.toThrow();
    // The batch is recorded (a retry is a duplicate) and its signal waits in the outbox until the sweeper sends it.
    expect((await ingest(api, events)).json).toEqual({ received: 1, applied: 0, duplicates: 1 });
    await reaches(api, id, 'COMPLETED');
    const lifecycle = api.temporal.workflow.getHandle(`intent-${id}`);
    await until('the sweeper signalled the claim', async () =>
      signalled(await lifecycle.fetchHistory(), 'claim') ? true : undefined,
    );
    expect(await lifecycle.result()).toBe('COMPLETED');
  } finally {
    await stopProcess(faulty, 'SIGKILL');
  }
}, 90_000);

test('an API killed after committing a withdrawal: the sweeper starts its hold, and expiry releases the reservation', async () => {
  const account = await funded('1000');
  await api.db.query("INSERT INTO project_accounts (project_id, account, proof) VALUES ($1, $2, 'operator')", [
    api.projectId,
    account.address.toLowerCase(),
  ]);
  const { child: faulty, port } = await spawnApi({ ...api.env.env, FAULT_INJECTION: 'withdrawal-after-commit' });
  try {
    const body = {
      account: account.address,
      chainId: 8453,
      tokenAddress: BASE_USDC,
      amount: '600',
      recipient: account.address,
    };
    await expect(
      fetch(`http://127.0.0.1:${port}/withdrawals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': api.apiKey },
        body: JSON.stringify(body),
      }),
    ).rejects.toThrow();
    const [{ nonce }] = await api.db.query('SELECT nonce FROM withdrawals WHERE account = $1', [
      account.address.toLowerCase(),
    ]);
    expect(await activeReservations(api, nonce)).toBe(1);
    // The answer was lost, the reservation is not: its hold is started by the sweeper and ends at expiry (4 s in tests),
    // and a snapshot at or after `expires` releases it.
    const status = async () =>
      (await api.db.query('SELECT status FROM withdrawals WHERE nonce = $1', [nonce]))[0].status;
    await until('expired', async () => ((await status()) === 'EXPIRED' ? true : undefined), 30_000);
    const [{ expires }] = await api.db.query(
      "SELECT response->>'expires' AS expires FROM withdrawals WHERE nonce = $1",
      [nonce],
    );
    await ingest(api, [
      lockedSnapshot(account.address, '1000', {
        blockNumber: blockAt(Number(expires)),
        blockTimestamp: Number(expires),
      }),
    ]);
    expect(await activeReservations(api, nonce)).toBe(0);
  } finally {
    await stopProcess(faulty, 'SIGKILL');
  }
}, 90_000);

test('an indexer price event reaches the prices quotes sign (each process rereads them at most once a second)', async () => {
  const symbol = `RP${Date.now()}`;
  const account = await funded();
  const quotePrices = async () =>
    (
      await call(api, 'POST', '/intents/route', {
        body: {
          account: { address: account.address, accountType: 'EOA', setupOps: [] },
          destinationChainId: 42161,
          tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000' }],
        },
      })
    ).json.intentOp.signedMetadata.tokenPrices as Record<string, number>;
  expect((await quotePrices())[symbol]).toBeUndefined();
  expect((await ingest(api, [{ id: eventId(), type: 'price', symbol, usd: 1.25 }])).status).toBe(200);
  await until(
    'the new price in a quote',
    async () => ((await quotePrices())[symbol] === 1.25 ? true : undefined),
    10_000,
  );
});

test('a block number too large for the ledger is refused with 400 and the batch changes nothing', async () => {
  const account = privateKeyToAccount(generatePrivateKey()).address;
  const res = await ingest(api, [
    lockedSnapshot(account, '1'),
    lockedSnapshot(account, '1', { blockNumber: '12345678901234567890' }),
  ]);
  expect(res.status).toBe(400);
  expect(res.json.errors[0].context.path).toMatch(/blockNumber/);
  expect(await api.db.query('SELECT 1 FROM lock_balances WHERE account = $1', [account.toLowerCase()])).toEqual([]);
});

test('ingestion is answered while no worker runs, and applied once a worker starts', async () => {
  const account = await funded();
  const { id, signedIntentOp } = await signedQuote(api, account, Math.floor(Date.now() / 1000) + 3);
  expect((await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } })).status).toBe(201);
  killWorkers(api.env);
  try {
    const res = await ingest(api, [
      {
        id: eventId(),
        type: 'balance',
        chainId: 8453,
        account: account.address,
        token: BASE_USDC,
        unlocked: '777',
        blockNumber: '2',
      },
      fillEvent(id, TX(3)),
    ]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: 2, applied: 2, duplicates: 0 });
    // Balances and the fill's status are recorded by the request itself; the lifecycle reads it once it runs.
    const portfolio = await call(api, 'GET', `/accounts/${account.address}/portfolio`);
    expect(portfolio.json.portfolio[0].balance.unlocked).toBe('777');
    expect(await statusOf(api, id)).toBe('FILLED');
  } finally {
    await startWorker(api.env);
  }
  const lifecycle = api.temporal.workflow.getHandle(`intent-${id}`);
  await until('the lifecycle has the fill', async () =>
    (await lifecycle.query<{ status: string }>('state').catch(() => undefined))?.status === 'FILLED' ? true : undefined,
  );
}, 90_000);

test('wait=true answers after every lifecycle signal of the batch was delivered', async () => {
  const id = await filledPastItsDelay(api, await funded());
  const res = await call(api, 'POST', '/indexer/events?wait=true', {
    body: {
      events: [
        claimEvent(id, TX(4), { blockNumber: '4' }),
        claimEvent('123456789', TX(4), { timestamp: 4, blockNumber: '4' }),
      ],
    },
    headers: { 'x-indexer-key': api.indexerKey },
  });
  expect(res.status).toBe(200);
  const left = await api.db.query('SELECT workflow_id FROM signal_outbox WHERE workflow_id = ANY($1)', [
    [`intent-${id}`, 'intent-123456789'],
  ]);
  expect(left).toEqual([]); // delivered; the one for an unknown nonce waits for an owner as awaiting-owner-123456789
  expect(signalled(await api.temporal.workflow.getHandle(`intent-${id}`).fetchHistory(), 'claim')).toBe(true);
});

test('a stopping process drains the signals of a batch it answered before delivering them (no call left to a closed client)', async () => {
  const id = await filledPastItsDelay(api, await funded());
  await api.services.outbox.drain();
  // This intent's signal is held at its Temporal call until drain has been called, so the delivery is surely still
  // under way then (unheld, a fast local Temporal often finishes it before the answer is read).
  let arrived!: () => void;
  const atCall = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let delivered = false;
  const workflows = api.temporal.workflow;
  const signalWithStart = workflows.signalWithStart.bind(workflows);
  const spy = jest.spyOn(workflows, 'signalWithStart').mockImplementation(async (type, options) => {
    if (options.workflowId !== `intent-${id}`) return signalWithStart(type, options);
    arrived();
    await held;
    const handle = await signalWithStart(type, options);
    delivered = true;
    return handle;
  });
  try {
    // Without wait=true the answer goes before the signal: drain is what a stopping API awaits before closing Temporal.
    expect((await ingest(api, [claimEvent(id, TX(9), { blockNumber: '2' })])).status).toBe(200);
    await atCall;
    const drained = api.services.outbox.drain();
    release();
    await drained;
    expect(delivered).toBe(true);
  } finally {
    spy.mockRestore();
  }
  expect(await api.db.query('SELECT workflow_id FROM signal_outbox WHERE workflow_id = $1', [`intent-${id}`])).toEqual(
    [],
  );
});

test('a claimed reservation is released only when a balance snapshot at or after the claim block arrives', async () => {
  const account = await funded('5000000', '10');
  const { id, signedIntentOp } = await signedQuote(api, account);
  await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } });
  await ingest(api, [fillEvent(id, TX(5)), claimEvent(id, TX(6), { timestamp: 6, blockNumber: '20' })]);
  await reaches(api, id, 'COMPLETED');
  // The stored balance (block 10) still counts the claimed funds: releasing now would let them be spent twice.
  expect(await activeReservations(api, id)).toBe(1);
  await ingest(api, [lockedSnapshot(account.address, '5000000', { blockNumber: '19' })]);
  expect(await activeReservations(api, id)).toBe(1);
  await ingest(api, [lockedSnapshot(account.address, '3900000', { blockNumber: '20' })]);
  expect(await activeReservations(api, id)).toBe(0);
});

test('an event for a lifecycle that has ended is dropped: its signal-with-start never starts a second run', async () => {
  const { id, signedIntentOp } = await signedQuote(api, await funded(), Math.floor(Date.now() / 1000) + 3);
  await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } });
  await ingest(api, [fillEvent(id, TX(5)), claimEvent(id, TX(6), { timestamp: 6 })]);
  const handle = api.temporal.workflow.getHandle(`intent-${id}`);
  await until('lifecycle closed', async () =>
    (await handle.describe()).status.name === 'COMPLETED' ? true : undefined,
  );
  const late = await call(api, 'POST', '/indexer/events?wait=true', {
    body: {
      events: [fillEvent(id, TX(7))],
    },
    headers: { 'x-indexer-key': api.indexerKey },
  });
  expect(late.status).toBe(200);
  expect(await api.db.query('SELECT 1 FROM signal_outbox WHERE workflow_id = $1', [`intent-${id}`])).toEqual([]);
  const runs: string[] = [];
  for await (const wf of api.temporal.workflow.list({ query: `WorkflowId = 'intent-${id}'` }))
    runs.push(wf.status.name);
  expect(runs).toEqual(['COMPLETED']);
  expect(await statusOf(api, id)).toBe('COMPLETED');
});

test('a PENDING lifecycle waits out a start delay until its deadline, with no workflow task; events meanwhile do not wake it, it reads them from its record then', async () => {
  const { id, signedIntentOp } = await signedQuote(api, await funded(), Math.floor(Date.now() / 1000) + 4);
  expect((await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } })).status).toBe(201);
  await api.services.outbox.drain();
  const history = async () => (await api.temporal.workflow.getHandle(`intent-${id}`).fetchHistory()).events ?? [];
  const [started, ...rest] = await history();
  // Started and nothing else: no workflow task is scheduled before the delay ends (fill deadline plus grace).
  expect(rest).toEqual([]);
  const deadline =
    Number(signedIntentOp.elements[0].mandate.fillDeadline) + api.services.config.intents.fillGraceSeconds;
  const backoff = Number(started.workflowExecutionStartedEventAttributes!.firstWorkflowTaskBackoff!.seconds);
  expect(Math.abs(Date.now() / 1000 + backoff - deadline)).toBeLessThan(5);
  const batch = await call(api, 'POST', '/indexer/events?wait=true', {
    body: { events: [fillEvent(id, TX(5)), claimEvent(id, TX(6), { blockNumber: '2' })] },
    headers: { 'x-indexer-key': api.indexerKey },
  });
  expect(batch.status).toBe(200);
  expect(await statusOf(api, id)).toBe('COMPLETED');
  // Nothing was queued for it, and it still has no task: the batch woke nothing.
  expect(await api.db.query('SELECT 1 FROM signal_outbox WHERE workflow_id = $1', [`intent-${id}`])).toEqual([]);
  expect(await history()).toHaveLength(1);
  // At the deadline's grace it reads its record, and ends there: one read, no transition of its own to write.
  expect(await api.temporal.workflow.getHandle(`intent-${id}`).result()).toBe('COMPLETED');
  const events = await history();
  expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes)).toEqual([]);
  expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
});

test('operators find lifecycles in Temporal by status, account and project (typed search attributes)', async () => {
  const account = await funded();
  // The status attribute follows what the lifecycle read: at its deadline's grace, the failure reported before it.
  const { id, signedIntentOp } = await signedQuote(api, account, Math.floor(Date.now() / 1000) + 8);
  await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } });
  const list = async (query: string) => {
    const ids: string[] = [];
    for await (const wf of api.temporal.workflow.list({ query })) ids.push(wf.workflowId);
    return ids;
  };
  const acct = account.address.toLowerCase();
  await until(
    'listed as PENDING',
    async () =>
      (await list(`IntentStatus = 'PENDING' AND Account = '${acct}'`)).includes(`intent-${id}`) ? true : undefined,
    20_000,
  );
  expect(await list(`Project = '${api.projectId}' AND Chains = '42161' AND Account = '${acct}'`)).toEqual([
    `intent-${id}`,
  ]);
  await ingest(api, [{ id: eventId(), type: 'failure', chainId: 42161, nonce: id, reason: 'reverted' }]);
  await until(
    'listed as FAILED',
    async () =>
      (await list(`IntentStatus = 'FAILED' AND Account = '${acct}'`)).includes(`intent-${id}`) ? true : undefined,
    20_000,
  );
  const described = await api.temporal.workflow.getHandle(`intent-${id}`).describe();
  expect(await described.staticSummary()).toBe(`Intent ${id}: ${acct} → chain 42161`);
});

describe('withdrawals cannot be used to grief', () => {
  const withdraw = (key: string, body: Record<string, unknown>) =>
    call(api, 'POST', '/withdrawals', { body, headers: { 'x-api-key': key } });

  test('a project may allocate only for accounts that proved themselves to it', async () => {
    const account = await funded();
    const { apiKey: foreign, projectId: foreignId } = await createProject(api.db, 'griefer');
    const body = {
      account: account.address,
      chainId: 8453,
      tokenAddress: BASE_USDC,
      amount: '1000',
      recipient: account.address,
    };
    const refused = await withdraw(foreign, body);
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/has not authorized this project/);
    expect(await api.db.query('SELECT 1 FROM withdrawals WHERE account = $1', [account.address.toLowerCase()])).toEqual(
      [],
    );

    // A signature by the account over the request proves it, once. The request names no lock tag, so the account
    // signs this allocator's (/health's lockTag), as docs/trust-model.md says.
    const deadline = Math.floor(Date.now() / 1000) + 600;
    const lockTag = (await call(api, 'GET', '/health')).json.lockTag;
    const sponsorSignature = await account.signTypedData(
      withdrawalRequestTypedData(
        {
          account: account.address,
          chainId: 8453,
          transfers: [{ recipient: account.address, tokenAddress: BASE_USDC, amount: '1000' }],
        },
        deadline,
        lockTag,
        api.services.sessionSigner(foreignId).address,
      ),
    );
    const withSignature = await withdraw(foreign, { ...body, sponsorSignature, deadline });
    expect(withSignature.status).toBe(200);
    const replay = await withdraw(foreign, { ...body, sponsorSignature, deadline });
    expect(replay.status).toBe(400);
    expect(replay.json.message).toMatch(/already used/);
    const forged = await withdraw(foreign, { ...body, amount: '2000', sponsorSignature, deadline });
    expect(forged.status).toBe(403);
  });

  test('outstanding authorizations per account are limited (429 past the limit)', async () => {
    const account = await funded('100000000');
    const { apiKey, projectId } = await createProject(api.db, 'busy');
    await api.db.query("INSERT INTO project_accounts (project_id, account, proof) VALUES ($1, $2, 'operator')", [
      projectId,
      account.address.toLowerCase(),
    ]);
    const body = {
      account: account.address,
      chainId: 8453,
      tokenAddress: BASE_USDC,
      amount: '10',
      recipient: account.address,
    };
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await withdraw(apiKey, body)).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });
});

describe('reservations stay while the signature can be claimed', () => {
  test('FAILED keeps the reservation (the arbiter may still claim until expires); a claim after the failure settles it', async () => {
    const account = await funded('5000000', '3');
    const { id, signedIntentOp } = await signedQuote(api, account);
    await call(api, 'POST', '/intent-operations', { body: { signedIntentOp } });
    await ingest(api, [{ id: eventId(), type: 'failure', chainId: 42161, nonce: id, reason: 'reverted' }]);
    await reaches(api, id, 'FAILED');
    expect(await activeReservations(api, id)).toBe(1); // expires is ten minutes away
    await ingest(api, [claimEvent(id, TX(8), { timestamp: 8, blockNumber: '4' })]);
    await until('claim recorded', async () =>
      (await call(api, 'GET', `/intent-operation/${id}`)).json.claims[0].status === 'CLAIMED' ? true : undefined,
    );
    expect((await call(api, 'GET', `/intent-operation/${id}`)).json.status).toBe('FAILED');
    expect(await activeReservations(api, id)).toBe(1);
    await ingest(api, [lockedSnapshot(account.address, '3900000', { blockNumber: '4' })]);
    expect(await activeReservations(api, id)).toBe(0);
  });

  test('a fill that arrives after the deadline counts when its on-chain timestamp is before it', async () => {
    const account = await funded();
    const deadline = Math.floor(Date.now() / 1000) + 2;
    const route = await call(api, 'POST', '/intents/route', {
      body: {
        account: { address: account.address, accountType: 'EOA', setupOps: [] },
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
        options: { customDeadline: deadline },
      },
    });
    const op = route.json.intentOp;
    const signature = await account.signTypedData(getCompactTypedData(op));
    const { json } = await call(api, 'POST', '/intent-operations', {
      body: { signedIntentOp: { ...op, originSignatures: [signature], destinationSignature: signature } },
    });
    await waitFor('the deadline', async () => Date.now() / 1000 > deadline, 10_000);
    const fills = [
      fillEvent(json.result.id, TX(10), { timestamp: deadline + 1 }), // too late on chain
      fillEvent(json.result.id, TX(11), { timestamp: deadline - 1 }),
    ];
    await ingest(api, fills);
    await reaches(api, json.result.id, 'FILLED');
    expect((await call(api, 'GET', `/intent-operation/${json.result.id}`)).json.fillTransactionHash).toBe(TX(11));
  });

  test("expires never outlives the lock's reset period: a custom deadline past it is refused", async () => {
    const account = await funded();
    const res = await call(api, 'POST', '/intents/route', {
      body: {
        account: { address: account.address, accountType: 'EOA', setupOps: [] },
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
        options: { customDeadline: Math.floor(Date.now() / 1000) + 8 * 86_400 },
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/reset period/);
    const ok = await call(api, 'POST', '/intents/route', {
      body: {
        account: { address: account.address, accountType: 'EOA', setupOps: [] },
        destinationChainId: 42161,
        tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
        options: { customDeadline: Math.floor(Date.now() / 1000) + 7 * 86_400 },
      },
    });
    expect(Number(ok.json.intentOp.expires)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 608_400 + 5);
  });

  test('intents spend nothing from a lock with a forced withdrawal under way; the latest block decides', async () => {
    const account = await funded();
    const lockTag = (await call(api, 'GET', '/health')).json.lockTag as string;
    const lockId = BigInt(`${lockTag}${BASE_USDC.slice(2)}`).toString();
    const status = (s: string, block: string) => ({
      id: eventId(),
      type: 'forced-withdrawal',
      chainId: 8453,
      account: account.address,
      lockId,
      status: s,
      blockNumber: block,
    });
    const quote = () =>
      call(api, 'POST', '/intents/route', {
        body: {
          account: { address: account.address, accountType: 'EOA', setupOps: [] },
          destinationChainId: 42161,
          tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
        },
      });
    expect((await ingest(api, [status('pending', '10')])).json).toEqual({ received: 1, applied: 1, duplicates: 0 });
    expect((await quote()).json.message).toBe('Insufficient balance');
    await ingest(api, [status('disabled', '9')]); // older than the pending one: ignored
    expect((await quote()).json.message).toBe('Insufficient balance');
    await ingest(api, [status('disabled', '11')]);
    expect((await quote()).status).toBe(200);
  });
});
