import { latest } from '../../src/ingestion/apply-events';

const row = (block: string, amount: string, account = '0xa') => ({ chainId: 1, account, token: '0xt', amount, block });

test('highest block wins per key; on a tie the later event in the batch', () => {
  expect(latest([row('5', 'a'), row('9', 'b'), row('7', 'c')])).toEqual([row('9', 'b')]);
  expect(latest([row('5', 'a'), row('5', 'b')])).toEqual([row('5', 'b')]);
});

test('block numbers compare as integers, not strings, and rows come out in key order', () => {
  expect(latest([row('10', 'ten'), row('9', 'nine')])).toEqual([row('10', 'ten')]);
  expect(latest([row('1', 'x', '0xb'), row('1', 'y', '0xa')]).map((r) => r.account)).toEqual(['0xa', '0xb']);
});

test('21.2 a winning snapshot without a block timestamp keeps the one it replaces (a lower bound: timestamps never decrease)', () => {
  const stamped = { ...row('5', 'a'), timestamp: 1_800_000_060, timestampBlock: '5' };
  expect(latest([stamped, row('9', 'b')])).toEqual([
    { ...row('9', 'b'), timestamp: 1_800_000_060, timestampBlock: '5' },
  ]);
  expect(latest([row('9', 'b'), stamped])).toEqual([row('9', 'b')]); // older: ignored, its timestamp with it
  expect(latest([stamped, { ...row('9', 'b'), timestamp: 1_800_000_108 }])[0].timestamp).toBe(1_800_000_108);
});
