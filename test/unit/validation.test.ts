import { bodyAjv } from '../../src/http/schema';
import { validationError } from '../../src/http/errors';
import { ingestBody } from '../../src/ingestion/schemas';

const validate = bodyAjv.compile(ingestBody);
const event = {
  id: 'a',
  type: 'balance',
  chainId: 1,
  account: `0x${'1'.repeat(40)}`,
  token: `0x${'2'.repeat(40)}`,
  unlocked: '1',
  blockNumber: '3',
};

test('a balance event needs locked or unlocked, decimal-string amounts and a block', () => {
  expect(validate({ events: [event] })).toBe(true);
  expect(validate({ events: [{ ...event, unlocked: undefined }] })).toBe(false);
  expect(validate({ events: [{ ...event, unlocked: 1 }] })).toBe(false);
  expect(validate({ events: [{ ...event, unlocked: '01' }] })).toBe(false);
  expect(validate({ events: [{ ...event, blockNumber: -1 }] })).toBe(false);
  expect(validate({ events: [{ ...event, lockTag: '0x1234' }] })).toBe(false);
});

test('unknown fields are ignored, unknown types are refused', () => {
  expect(validate({ events: [{ ...event, extra: true }], also: 1 })).toBe(true);
  expect(validate({ events: [{ ...event, type: 'nope' }] })).toBe(false);
});

test('ajv errors become one 400 naming the first field, with every problem listed', () => {
  validate({ events: [{ ...event, account: 'x', token: 'y' }] });
  const err = validationError('body', validate.errors!);
  expect(err.status).toBe(400);
  expect(err.message).toBe('body.events.0.account must match pattern "^0x[0-9a-fA-F]{40}$"');
  expect(err.extra.errors!.length).toBeGreaterThanOrEqual(2);
});
