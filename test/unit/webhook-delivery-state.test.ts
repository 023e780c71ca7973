import { loadConfig } from '../../src/config';
import { delayAfter, unitHash } from '../../workflows/webhook-delivery-state';

const delays = loadConfig({}).webhooks.retryDelaysSeconds;

test('the default schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then daily: over three days', () => {
  expect(delays).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000, 86400, 86400]);
  expect(delayAfter(delays, 10, 0.5)).toBeNull(); // ten attempts in all
  const total = delays.reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThan(3 * 86_400);
});

test('delays are jittered within a tenth either way, and end after the last one', () => {
  expect(delayAfter(delays, 1, 0)).toBe(4.5);
  expect(delayAfter(delays, 1, 0.999999)).toBeCloseTo(5.5, 3);
  expect(delayAfter(delays, 2, 0.5)).toBe(300);
  expect(delayAfter(delays, 9, 0.5)).toBe(86400);
  expect(delayAfter(delays, 10, 0.5)).toBeNull();
  expect(delayAfter([], 1, 0.5)).toBeNull();
});

test('jitter comes from a stable hash of the attempt, spread over [0, 1)', () => {
  expect(unitHash('evt_a/ep/1/1')).toBe(unitHash('evt_a/ep/1/1'));
  const values = Array.from({ length: 1000 }, (_, i) => unitHash(`evt_${i}/ep/1/1`));
  expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
  expect(Math.max(...values)).toBeLessThan(1);
  expect(values.filter((v) => v < 0.5).length).toBeGreaterThan(400);
  expect(values.filter((v) => v < 0.5).length).toBeLessThan(600);
});

test('the schedule and limits come from the environment and are checked', () => {
  expect(loadConfig({ WEBHOOK_RETRY_DELAYS: '1, 2,3' }).webhooks.retryDelaysSeconds).toEqual([1, 2, 3]);
  expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS: '1,x' })).toThrow('WEBHOOK_RETRY_DELAYS');
  expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow('WEBHOOK_ALLOW_PRIVATE must be true or false');
  expect(loadConfig({ NODE_ENV: 'production' }).webhooks).toMatchObject({
    allowHttp: false,
    allowLoopback: false,
    allowPrivate: false,
  });
});
