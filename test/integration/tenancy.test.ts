import type { ChildProcess } from 'node:child_process';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { spawnEntry, stopProcess, waitFor } from '../../src/dev/processes';
import {
  registerAccountTypedData,
  releaseAccountTypedData,
  withdrawTypedData,
} from '../../src/deposits/session-digest';
import { signAndSubmit } from '../../src/deposits/session-intents';
import { forgetAttempt } from '../../src/deposits/store';
import { createQuote } from '../../src/intents/quote-service';
import { proveAccount } from '../../src/projects/account-store';
import { withdrawalRequestTypedData } from '../../src/withdrawals/sponsor-signature';
import { freePort } from '../support/global-setup';
import { ARB_USDC, BASE_USDC, eventId, getCompactTypedData, TX } from '../support/fixtures';
import { Api, call, fundLocked, ingest, startApi } from '../support/harness';
import { DP, depositEvents, projectSigner, registerManaged } from '../support/deposits';
import { newProject, type Project } from '../support/projects';
import { reservedFor } from '../support/reservations';

/*
 * What one project's key can do to another project's users, and the lock order of the
 * ledger's writers, tried with real API processes against real Temporal and PostgreSQL.
 */

let api: Api;
const extra: ChildProcess[] = [];
/** The in-process API and two more API processes on the same database: concurrent requests really race. */
let urls: string[] = [];
let tx = 21_000;

beforeAll(async () => {
  api = await startApi();
  urls = [api.url];
  for (let i = 0; i < 2; i++) {
    const port = await freePort();
    extra.push(spawnEntry('api', { ...api.env.env, PORT: String(port), HOST: '127.0.0.1' }, 'ignore'));
    urls.push(`http://127.0.0.1:${port}`);
  }
  await Promise.all(urls.map((url) => waitFor(`API ${url}`, async () => (await fetch(`${url}/ready`)).ok, 60_000)));
}, 90_000);
afterAll(async () => {
  await Promise.all(extra.map((p) => stopProcess(p)));
  await api.close();
});

const on = (i: number, p: Pick<Api, 'apiKey'> = api) => ({ ...api, apiKey: p.apiKey, url: urls[i % urls.length] });
const newEoa = () => privateKeyToAccount(generatePrivateKey());

const outstanding = async (account: string, projectId: string) =>
  (
    await api.db.query(
      "SELECT count(*)::int AS n FROM withdrawals WHERE account = $1 AND project_id = $2 AND status = 'ALLOCATED'",
      [account.toLowerCase(), projectId],
    )
  )[0].n as number;
const isProven = async (projectId: string, account: string) =>
  (
    await api.db.query('SELECT 1 FROM project_accounts WHERE project_id = $1 AND account = $2', [
      projectId,
      account.toLowerCase(),
    ])
  ).length > 0;

const withdrawal = (account: string, amount: number) => ({
  account,
  chainId: 8453,
  tokenAddress: BASE_USDC,
  amount: String(amount),
  recipient: account,
});

/** A withdrawal request signed by the account itself for a project (one signature authorizes one allocation). */
async function signedWithdrawal(owner: ReturnType<typeof newEoa>, amount: number, projectId = api.projectId) {
  const body = withdrawal(owner.address, amount);
  const deadline = Math.floor(Date.now() / 1000) + 600;
  const typed = withdrawalRequestTypedData(
    {
      account: body.account,
      chainId: 8453,
      transfers: [{ recipient: body.recipient, tokenAddress: BASE_USDC, amount: String(amount) }],
    },
    deadline,
    api.services.defaultLockTag,
    api.services.sessionSigner(projectId).address,
  );
  return {
    ...body,
    deadline,
    sponsorSignature: await owner.signTypedData(typed as Parameters<typeof owner.signTypedData>[0]),
  };
}

/** A quote of the account's own, signed by it (its submit proves the account to the project). */
async function signedIntent(owner: ReturnType<typeof newEoa>, url: string) {
  const route = await call({ ...api, url }, 'POST', '/intents/route', {
    body: {
      account: { address: owner.address, accountType: 'EOA', setupOps: [] },
      destinationChainId: 42161,
      tokenRequests: [{ tokenAddress: ARB_USDC, amount: '1000000' }],
    },
  });
  expect(route.status).toBe(200);
  const op = route.json.intentOp;
  const signature = await owner.signTypedData(getCompactTypedData(op));
  return { ...op, originSignatures: [signature], destinationSignature: signature };
}

/**
 * A managed account of `p` on Base (target: Base USDC, so a deposit completes without a bridge and its funds stay in
 * the account), holding `otherFunds` the project's deposits did not bring, and one deposit of `deposited` processed
 * by `p` (waited for until completed).
 */
async function managedAccount(p: Project, otherFunds: bigint, deposited?: bigint) {
  const { owner, address } = await registerManaged(p, { chain: 'eip155:8453', token: BASE_USDC });
  const balance = otherFunds + (deposited ?? 0n);
  await ingest(api, [
    {
      id: eventId(),
      type: 'balance',
      chainId: 8453,
      account: address,
      token: BASE_USDC,
      unlocked: balance.toString(),
      blockNumber: '10',
    },
  ]);
  let depositId: string | undefined;
  if (deposited) {
    const txHash = TX(tx++);
    await ingest(
      api,
      depositEvents({ amount: deposited.toString(), account: address, sender: newEoa().address, txHash, block: 10 }),
    );
    await waitFor(
      `deposit ${txHash} completed`,
      async () => {
        const [d] = (await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits;
        depositId = d?.id;
        return d?.status === 'completed';
      },
      30_000,
    );
  }
  return { owner, address, depositId };
}

/** POST /safe/withdraw signed by the owner the project registered (whoever that is). */
async function safeWithdraw(
  p: Project,
  owner: ReturnType<typeof newEoa>,
  account: string,
  amount: bigint,
  nonce: string,
) {
  const request = {
    account,
    token: BASE_USDC,
    amount: amount.toString(),
    recipient: owner.address,
    nonce,
    deadline: String(Math.floor(Date.now() / 1000) + 600),
  };
  const signature = await owner.signTypedData(
    withdrawTypedData(request, 8453, await projectSigner(p)) as Parameters<typeof owner.signTypedData>[0],
  );
  return call(p, 'POST', `${DP}/safe/withdraw`, { body: { ...request, chain: 'eip155:8453', signature } });
}

describe('21.3 cross-tenant griefing through the deposit processor', () => {
  test("21.3 a project's registration reserves only what its own deposits brought into the account", async () => {
    const attacker = await newProject(api, 'attacker');
    // Someone else's 50 USDC sit in the address; the attacker's project registers it with an owner of its choosing.
    const victim = await managedAccount(attacker, 50_000_000n);
    const grab = await safeWithdraw(attacker, victim.owner, victim.address, 40_000_000n, '1');
    expect(grab.status).toBe(400);
    expect(grab.json).toMatchObject({ error: 'Insufficient balance', code: 'BALANCE-1' });
    expect(await reservedFor(api, victim.address)).toBe(0n);

    // Its own customer's deposit of 2 USDC into an account it registered is its to move, and no more.
    const own = await managedAccount(attacker, 50_000_000n, 2_000_000n);
    const tooMuch = await safeWithdraw(attacker, own.owner, own.address, 3_000_000n, '1');
    expect(tooMuch.json).toMatchObject({ error: 'Insufficient balance', code: 'BALANCE-1' });
    const fine = await safeWithdraw(attacker, own.owner, own.address, 1_000_000n, '2');
    expect(fine.status).toBe(202);
    // What that intent reserved is spent from the project's credit: a second one cannot reserve the first's share again.
    const again = await safeWithdraw(attacker, own.owner, own.address, 1_500_000n, '3');
    expect(again.json).toMatchObject({ code: 'BALANCE-1' });
  }, 60_000);

  test("21.3 a second project's registration of the same address neither 409s nor takes the first one's deposits; the account's own signature decides", async () => {
    const [first, second] = [await newProject(api, 'first'), await newProject(api, 'second')];
    const account = newEoa(); // an address whose key signs, as an EOA or (ERC-1271) a smart account does
    const owners = new Map([first, second].map((p) => [p.projectId, newEoa().address]));
    const register = async (p: Project, extra: Record<string, unknown> = {}) =>
      call(p, 'POST', `${DP}/register-managed`, {
        body: {
          account: {
            address: account.address,
            owner: owners.get(p.projectId),
            sessionSigner: await projectSigner(p),
            target: { chain: 'eip155:8453', token: BASE_USDC },
            ...extra,
          },
        },
      });
    expect((await register(first)).status).toBe(201);
    const squat = await register(second);
    expect(squat.status).toBe(201);
    expect((await register(first)).status).toBe(200); // the first project's registration stands as it was
    const deposit = async () => {
      const txHash = TX(tx++);
      await ingest(
        api,
        depositEvents({
          amount: '2000000',
          account: account.address,
          sender: newEoa().address,
          txHash,
          balance: '2000000',
          block: 10,
        }),
      );
      await waitFor(
        `deposit ${txHash}`,
        async () =>
          (await call(first, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits.length +
            (await call(second, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits.length >
          0,
        10_000,
      );
      return {
        first: (await call(first, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits.length,
        second: (await call(second, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits.length,
      };
    };
    expect(await deposit()).toEqual({ first: 1, second: 0 });

    // The account itself signs for the second project's signer: from now on its deposits are the second project's.
    const signer = await projectSigner(second);
    const proof = { nonce: '1', deadline: String(Math.floor(Date.now() / 1000) + 600) };
    const accountSignature = await account.signTypedData(
      registerAccountTypedData(account.address, 8453, signer, proof) as Parameters<typeof account.signTypedData>[0],
    );
    const forged = await register(second, {
      accountSignature: await newEoa().signTypedData(
        registerAccountTypedData(account.address, 8453, signer, proof) as Parameters<typeof account.signTypedData>[0],
      ),
      accountNonce: proof.nonce,
      accountDeadline: proof.deadline,
    });
    expect(forged.status).toBe(400);
    expect(
      (await register(second, { accountSignature, accountNonce: proof.nonce, accountDeadline: proof.deadline })).status,
    ).toBe(200);
    expect(await deposit()).toEqual({ first: 0, second: 1 });
  }, 60_000);

  test("a registration signature works once: a project the account left cannot take its deposits back by replaying the registration it kept; the account's signed release ends a project's hold", async () => {
    const [first, second] = [await newProject(api, 'left'), await newProject(api, 'joined')];
    const account = newEoa();
    const register = async (p: Project, extra: Record<string, unknown> = {}) =>
      call(p, 'POST', `${DP}/register-managed`, {
        body: {
          account: {
            address: account.address,
            owner: account.address,
            sessionSigner: await projectSigner(p),
            target: { chain: 'eip155:8453', token: BASE_USDC },
            ...extra,
          },
        },
      });
    const deadline = String(Math.floor(Date.now() / 1000) + 600);
    const signed = async (p: Project, nonce: string, by = account) => ({
      accountSignature: await by.signTypedData(
        registerAccountTypedData(account.address, 8453, await projectSigner(p), { nonce, deadline }) as Parameters<
          typeof account.signTypedData
        >[0],
      ),
      accountNonce: nonce,
      accountDeadline: deadline,
    });
    const owner = async () => {
      const txHash = TX(tx++);
      await ingest(
        api,
        depositEvents({
          amount: '2000000',
          account: account.address,
          sender: newEoa().address,
          txHash,
          balance: '2000000',
          block: 10,
        }),
      );
      const of = async (p: Project) => (await call(p, 'GET', `${DP}/deposits?txHash=${txHash}`)).json.deposits.length;
      // A deposit is recorded in the batch's transaction: nobody's once ingested is nobody's for good.
      return (await of(first)) ? 'left' : (await of(second)) ? 'joined' : 'nobody';
    };

    const kept = await signed(first, '1');
    expect((await register(first, kept)).status).toBe(201);
    expect((await register(first, kept)).status).toBe(200); // the same registration again: answered, not refused
    expect(await owner()).toBe('left');
    expect((await register(second, await signed(second, '2'))).status).toBe(201);
    expect(await owner()).toBe('joined');

    // The project the account left replays the body it kept: refused, nothing changes.
    const replay = await register(first, kept);
    expect(replay.status).toBe(409);
    expect(replay.json).toMatchObject({
      error: 'This account signature was already used or superseded: sign again with a higher nonce',
      details: [{ path: ['body', 'account', 'accountNonce'], code: 'nonce' }],
    });
    expect(await owner()).toBe('joined');
    // The kept signature under a nonce above the account's last: the signature is over nonce 1, so it proves nothing.
    const bumped = await register(first, { ...kept, accountNonce: '5' });
    expect(bumped.status).toBe(400);
    expect(bumped.json.details).toEqual([expect.objectContaining({ path: ['body', 'account', 'accountSignature'] })]);
    expect(await owner()).toBe('joined');
    // A signature for a lower nonce than the account's last is as stale, even one never sent before; a past deadline is refused.
    expect((await register(first, await signed(first, '1'))).status).toBe(409);
    const late = { nonce: '9', deadline: String(Math.floor(Date.now() / 1000) - 1) };
    const expired = await register(first, {
      accountSignature: await account.signTypedData(
        registerAccountTypedData(account.address, 8453, await projectSigner(first), late) as Parameters<
          typeof account.signTypedData
        >[0],
      ),
      accountNonce: late.nonce,
      accountDeadline: late.deadline,
    });
    expect(expired.status).toBe(400);
    expect(expired.json.details).toEqual([
      { message: 'is in the past', path: ['body', 'account', 'accountDeadline'], code: 'deadline' },
    ]);
    expect((await register(first, { accountSignature: kept.accountSignature })).status).toBe(400); // nonce and deadline come with the signature

    // The account ends the joined project's hold, by a release any project may carry; its replay is refused.
    const release = { chain: 'eip155:8453', sessionSigner: await projectSigner(second), nonce: '3', deadline };
    const releaseSig = await account.signTypedData(
      releaseAccountTypedData(account.address, 8453, release.sessionSigner, release) as Parameters<
        typeof account.signTypedData
      >[0],
    );
    const forgedRelease = await call(first, 'POST', `${DP}/account/${account.address}/release`, {
      body: {
        ...release,
        signature: await newEoa().signTypedData(
          releaseAccountTypedData(account.address, 8453, release.sessionSigner, release) as Parameters<
            typeof account.signTypedData
          >[0],
        ),
      },
    });
    expect(forgedRelease.status).toBe(400);
    expect(await owner()).toBe('joined');
    const released = await call(first, 'POST', `${DP}/account/${account.address}/release`, {
      body: { ...release, signature: releaseSig },
    });
    expect(released.status).toBe(200);
    expect(await owner()).toBe('left'); // the other registration, proven before, is what remains
    expect(
      (
        await call(first, 'POST', `${DP}/account/${account.address}/release`, {
          body: { ...release, signature: releaseSig },
        })
      ).status,
    ).toBe(409);
    // The account signs for the joined project again (a higher nonce): its registration is back.
    expect((await register(second, await signed(second, '4'))).status).toBe(200);
    expect(await owner()).toBe('joined');
  }, 60_000);

  test("21.3 only the sponsor's own signature proves an account to a project (a session signer's intent does not)", async () => {
    const p = await newProject(api, 'session');
    const { owner, address } = await managedAccount(p, 0n, 3_000_000n);
    await fundLocked(api, address, '50000000');
    const res = await safeWithdraw(p, owner, address, 1_000_000n, '1');
    expect(res.status).toBe(202);
    expect(await isProven(p.projectId, address)).toBe(false);
    const alloc = await call(p, 'POST', '/withdrawals', { body: withdrawal(address, 1_000_000) });
    expect(alloc.status).toBe(403);
    expect(alloc.json.message).toMatch(/has not authorized this project/);
  }, 60_000);

  test('21.3 the outstanding-withdrawal cap counts per (account, project): another project fills no slot of this one', async () => {
    const account = newEoa().address;
    await fundLocked(api, account, '1000000000');
    const [p1, p2] = [await newProject(api, 'cap-1'), await newProject(api, 'cap-2')];
    for (const p of [p1, p2]) await proveAccount(api.db.manager, p.projectId, account, 'operator');
    const max = api.services.config.allocator.maxOutstandingWithdrawals;
    for (let i = 0; i < max; i++)
      expect((await call(p1, 'POST', '/withdrawals', { body: withdrawal(account, 1 + i) })).status).toBe(200);
    expect((await call(p1, 'POST', '/withdrawals', { body: withdrawal(account, 100) })).status).toBe(429);
    expect((await call(p2, 'POST', '/withdrawals', { body: withdrawal(account, 100) })).status).toBe(200);
  }, 60_000);

  test('21.3 the cap is checked under the lock that serializes allocations: 30 concurrent requests over 3 API processes never exceed it', async () => {
    const p = await newProject(api, 'cap-race');
    const max = api.services.config.allocator.maxOutstandingWithdrawals;
    for (let round = 0; round < 2; round++) {
      const account = newEoa().address;
      await fundLocked(api, account, '1000000000');
      await proveAccount(api.db.manager, p.projectId, account, 'operator');
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(on(i, p), 'POST', '/withdrawals', { body: withdrawal(account, 1 + i) }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([...Array(max).fill(200), ...Array(30 - max).fill(429)]);
      expect(await outstanding(account, p.projectId)).toBe(max);
    }
  }, 60_000);
});

test('21.6 a forgotten deposit quote is void: a retried startBridge submitting it later is refused', async () => {
  const p = await newProject(api, 'forget');
  const { address, depositId } = await managedAccount(p, 0n, 5_000_000n);
  const s = api.services;
  const quote = await createQuote(
    api.db,
    {
      destinationChainId: 8453,
      tokenRequests: [{ tokenAddress: BASE_USDC, amount: '1000000' }],
      account: { address, accountType: 'ERC7579', setupOps: [] },
      recipient: { address: newEoa().address, accountType: 'EOA' },
      destinationExecutions: [],
      accountAccessList: [{ chainId: 8453, tokenAddress: BASE_USDC }],
      options: {},
    },
    p.projectId,
    {
      registry: s.registry,
      rpc: s.rpc,
      config: s.config,
      lockTag: s.defaultLockTag,
      orchestrator: s.orchestrator,
      nonces: s.nonces,
    },
  );
  const nonce = BigInt(quote.intentOp.nonce).toString();
  // Attempt 1 recorded this quote, its submit was refused, and the attempt forgets it (the next one quotes afresh) ...
  await api.db.query('UPDATE deposits SET intent_id = $2, attempts = 1 WHERE id = $1', [depositId, nonce]);
  await forgetAttempt(api.db, 'bridge', depositId!, nonce, 1);
  expect((await api.db.query('SELECT intent_id FROM deposits WHERE id = $1', [depositId]))[0].intent_id).toBeNull();
  // ... while a retry of the same activity that read the quote before the forget submits it now: refused.
  const verify = { compactContract: s.config.intents.compactSigningContract, rpc: s.rpc };
  await expect(
    signAndSubmit(api.db, s.config, verify, s.sessionSigner(p.projectId), p.projectId, nonce),
  ).rejects.toMatchObject({ code: 'NOT_FOUND' }); // a 404
  expect((await api.db.query('SELECT count(*)::int AS n FROM intents WHERE id = $1', [nonce]))[0].n).toBe(0);
}, 60_000);

describe('proofs have bounds', () => {
  test('proofs have bounds: a signed withdrawal request names its project; a proof allows unsigned withdrawals only up to what the account signed for, and only for ACCOUNT_PROOF_DAYS', async () => {
    const [p, other] = [await newProject(api, 'bounded'), await newProject(api, 'leak')];
    const owner = newEoa();
    await fundLocked(api, owner.address, '1000000000');
    // A request signed for one project proves nothing to another, even sent there verbatim (a leaked signature).
    const signed = await signedWithdrawal(owner, 5000, p.projectId);
    const leaked = await call(other, 'POST', '/withdrawals', { body: signed });
    expect(leaked.status).toBe(403);
    expect(leaked.json.message).toMatch(/sponsorSignature is not a valid signature/);
    expect(await isProven(other.projectId, owner.address)).toBe(false);
    expect((await call(p, 'POST', '/withdrawals', { body: signed })).status).toBe(200);

    // Unsigned withdrawals on that proof hold at most what the account signed for: 5000, outstanding included.
    expect((await call(p, 'POST', '/withdrawals', { body: withdrawal(owner.address, 3000) })).status).toBe(200);
    expect((await call(p, 'POST', '/withdrawals', { body: withdrawal(owner.address, 2000) })).status).toBe(200);
    const more = await call(p, 'POST', '/withdrawals', { body: withdrawal(owner.address, 1) });
    expect(more.status).toBe(403);
    expect(more.json.message).toMatch(/would hold more than it signed for with this project/);
    const whole = await call(p, 'POST', '/withdrawals', { body: withdrawal(owner.address, 1_000_000_000) });
    expect(whole.status).toBe(403);
    // Signed, any amount the balance holds goes (and the allowance grows to it).
    expect(
      (await call(p, 'POST', '/withdrawals', { body: await signedWithdrawal(owner, 9000, p.projectId) })).status,
    ).toBe(200);

    // The proof lasts ACCOUNT_PROOF_DAYS (30 here, the default) from the account's last signature.
    const [window] = await api.db.query(
      'SELECT extract(epoch FROM proven_until - now()) / 86400 AS days FROM project_accounts WHERE project_id = $1 AND account = $2',
      [p.projectId, owner.address.toLowerCase()],
    );
    expect(Number(window.days)).toBeGreaterThan(29.99);
    expect(Number(window.days)).toBeLessThanOrEqual(30);
    // Past its time, the proof allows nothing without a fresh signature.
    await api.db.query(
      "UPDATE project_accounts SET proven_until = now() - interval '1 second' WHERE project_id = $1 AND account = $2",
      [p.projectId, owner.address.toLowerCase()],
    );
    const stale = await call(p, 'POST', '/withdrawals', { body: withdrawal(owner.address, 1) });
    expect(stale.status).toBe(403);
    expect(stale.json.message).toMatch(/authorization of this project expired \(30 days after its last signature\)/);
    expect(
      (await call(p, 'POST', '/withdrawals', { body: await signedWithdrawal(owner, 10, p.projectId) })).status,
    ).toBe(200);
  }, 60_000);
});

describe('21.9 lock order and idempotent allocations', () => {
  test('21.9 concurrent first-time proofs (signed intents and signed withdrawals over 3 API processes) neither deadlock nor fail', async () => {
    for (let round = 0; round < 4; round++) {
      const owner = newEoa();
      await fundLocked(api, owner.address, '1000000000');
      const intents = await Promise.all(
        Array.from({ length: 4 }, (_, i) => signedIntent(owner, urls[i % urls.length])),
      );
      const withdrawals = await Promise.all(Array.from({ length: 6 }, (_, i) => signedWithdrawal(owner, 1000 + i)));
      const results = await Promise.all([
        ...intents.map((op, i) => call(on(i), 'POST', '/intent-operations', { body: { signedIntentOp: op } })),
        ...withdrawals.map((body, i) => call(on(i + 1), 'POST', '/withdrawals', { body })),
      ]);
      expect(results.map((r) => `${r.status} ${r.status >= 300 ? r.text : ''}`.trim())).toEqual([
        ...Array(4).fill('201'),
        ...Array(6).fill('200'),
      ]);
      expect(await isProven(api.projectId, owner.address)).toBe(true);
    }
  }, 90_000);

  test('21.9 POST /withdrawals with an Idempotency-Key: a retry (even concurrent) returns the same allocation and reserves once', async () => {
    const account = newEoa().address;
    await fundLocked(api, account, '10000000');
    await proveAccount(api.db.manager, api.projectId, account, 'operator');
    const key = { 'idempotency-key': `k-${account}` };
    const body = withdrawal(account, 1_000_000);
    const results = await Promise.all(
      urls.flatMap((_, i) => [0, 1].map(() => call(on(i), 'POST', '/withdrawals', { body, headers: key }))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(results.length).fill(200));
    expect(new Set(results.map((r) => r.text)).size).toBe(1);
    expect(await reservedFor(api, account)).toBe(1_000_000n);
    expect(await outstanding(account, api.projectId)).toBe(1);

    const other = await call(api, 'POST', '/withdrawals', { body: withdrawal(account, 2_000_000), headers: key });
    expect(other.status).toBe(422);
    expect(other.json.message).toMatch(/Idempotency-Key .* was used with another request/);
    // Keys are per project: another project's same key is another request.
    const p2 = await newProject(api, 'idem');
    await proveAccount(api.db.manager, p2.projectId, account, 'operator');
    expect((await call(p2, 'POST', '/withdrawals', { body, headers: key })).text).not.toBe(results[0].text);
    expect(await reservedFor(api, account)).toBe(2_000_000n);
    const bad = await call(api, 'POST', '/withdrawals', { body, headers: { 'idempotency-key': 'x'.repeat(300) } });
    expect(bad.status).toBe(400);
  }, 60_000);
});
