import fs from 'node:fs';
import path from 'node:path';
import { DEPOSIT_ERRORS } from '../../src/deposits/errors';

test("the docs' deposit error catalogue is the code's: same codes, same retryability", () => {
  const page = fs.readFileSync(path.join(__dirname, '../../docs/deposit-processor.md'), 'utf8');
  const table = page.slice(page.indexOf('## Error codes'), page.indexOf('## Widget routes'));
  const rows = [...table.matchAll(/^\| `([A-Z]+-\d+)` \| (yes|no) \|/gm)].map((m) => [m[1], m[2] === 'yes']);
  expect(rows).toEqual(Object.entries(DEPOSIT_ERRORS).map(([code, e]) => [code, e.retryable]));
});
