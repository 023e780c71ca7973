import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { resolveSecrets } from '../../src/secrets';
import { restartDelayMs } from '../../src/dev/processes';

test('defaults and validation', () => {
  const c = loadConfig({});
  expect(c).toMatchObject({
    port: 3000,
    temporalUiPort: 8233,
    taskQueue: 'orchestrator',
    allocator: { scope: 0, resetPeriod: 6 },
  });
  expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT must be an integer/);
  expect(() => loadConfig({ ALLOCATOR_PRIVATE_KEY: '0x12' })).toThrow(/ALLOCATOR_PRIVATE_KEY/);
  expect(() => loadConfig({ ALLOCATOR_RESET_PERIOD: '8' })).toThrow(/ALLOCATOR_RESET_PERIOD/);
});

test('production refuses to start without secrets', () => {
  expect(() => resolveSecrets(loadConfig({ NODE_ENV: 'production' }))).toThrow(
    /INDEXER_API_KEY, ORCHESTRATOR_PRIVATE_KEY, ALLOCATOR_PRIVATE_KEY, COMPLIANCE_SESSION_KEY/,
  );
});

test('development generates missing secrets once and keeps them', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-'));
  const first = resolveSecrets(loadConfig({ DATA_DIR: dir }));
  expect(first.generated).toEqual([
    'INDEXER_API_KEY',
    'ORCHESTRATOR_PRIVATE_KEY',
    'ALLOCATOR_PRIVATE_KEY',
    'FILL_ATTESTER_PRIVATE_KEY',
    'COMPLIANCE_SESSION_KEY',
  ]);
  expect(first.secrets.complianceSessionKey.length).toBeGreaterThanOrEqual(32);
  const second = resolveSecrets(loadConfig({ DATA_DIR: dir }));
  expect(second.generated).toEqual([]);
  expect(second.secrets).toEqual(first.secrets);
  const overridden = resolveSecrets(loadConfig({ DATA_DIR: dir, INDEXER_API_KEY: 'mine' }));
  expect(overridden.secrets.indexerApiKey).toBe('mine');
  fs.rmSync(dir, { recursive: true });
});

test('npm start restarts a crashed worker or API with a doubling, capped backoff', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 20].map(restartDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test('alps deprecation dates: a default deprecation, no sunset until set, bad dates refused', () => {
  expect(loadConfig({}).versions).toEqual({
    alpsDeprecatedAt: new Date('2026-04-01T00:00:00Z'),
    alpsMigrationUrl: '/versions',
  });
  expect(loadConfig({ ALPS_SUNSET_AT: '2027-01-31' }).versions.alpsSunsetAt).toEqual(new Date('2027-01-31T00:00:00Z'));
  expect(() => loadConfig({ ALPS_SUNSET_AT: 'next year' })).toThrow(/ALPS_SUNSET_AT must be an ISO 8601 date/);
});

test('an alps answer with a sunset configured carries its HTTP date', async () => {
  const { deprecationNotice } = await import('../../src/versions/deprecation');
  const headers: Record<string, string> = {};
  const ctx = {
    state: { apiVersion: '2026-01.alps', versionedRoute: true },
    set: (k: string, v: string) => (headers[k] = v),
  };
  await deprecationNotice({
    alpsDeprecatedAt: new Date('2026-04-01T00:00:00Z'),
    alpsSunsetAt: new Date('2027-01-31T00:00:00Z'),
    alpsMigrationUrl: 'https://docs.example/migrate',
  })(ctx as never, async () => undefined);
  expect(headers).toEqual({
    deprecation: '@1775001600',
    sunset: 'Sun, 31 Jan 2027 00:00:00 GMT',
    link: '<https://docs.example/migrate>; rel="deprecation", </openapi/2026-04.blanc.json>; rel="successor-version"',
  });
});

test('21.4 deposit settings whose workflow history could outgrow Temporal are refused', () => {
  expect(() => loadConfig({})).not.toThrow();
  // A week's funds wait, retried every second: 604,800 turns of one attempt's loop.
  expect(() => loadConfig({ DEPOSIT_FUNDS_WAIT_SECONDS: String(7 * 86_400), DEPOSIT_RETRY_SECONDS: '1' })).toThrow(
    /waiting turns in one deposit's workflow/,
  );
  // A 30-day claim window checked every 5 minutes, for 21 attempts.
  expect(() => loadConfig({ INTENT_CLAIM_WINDOW_SECONDS: '2592000', DEPOSIT_BRIDGE_RETRIES: '20' })).toThrow(
    /at most 4000/,
  );
  expect(() =>
    loadConfig({ DEPOSIT_FUNDS_WAIT_SECONDS: '3600', DEPOSIT_RETRY_SECONDS: '10', DEPOSIT_REFUND_ATTEMPTS: '10' }),
  ).not.toThrow();
});

test('one Compact address: COMPACT_ADDRESS names the contract intents are signed for and withdrawals are allocated in; COMPACT_SIGNING_CONTRACT only overrides the first', () => {
  const client = '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f'; // the domain the published 1.x client signs intents in
  const canonical = '0x00000000000000171ede64904551eeDF3C6C9788';
  const unset = loadConfig({});
  expect([unset.allocator.compactAddress, unset.intents.compactSigningContract]).toEqual([client, client]);
  const moved = loadConfig({ COMPACT_ADDRESS: canonical });
  expect([moved.allocator.compactAddress, moved.intents.compactSigningContract]).toEqual([canonical, canonical]);
  const split = loadConfig({ COMPACT_ADDRESS: canonical, COMPACT_SIGNING_CONTRACT: client });
  expect([split.allocator.compactAddress, split.intents.compactSigningContract]).toEqual([canonical, client]);
  expect(() => loadConfig({ COMPACT_ADDRESS: '0x12' })).toThrow(
    /COMPACT_ADDRESS must be a 0x-prefixed 20-byte address/,
  );
});
