import fs from 'node:fs';
import path from 'node:path';
import { DEPOSIT_ERRORS } from '../../src/deposits/errors';

test("the README's deposit error catalogue is the code's: same codes, same retryability", () => {
  const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Deposit processor'), readme.indexOf('## Widget analytics'));
  const table = section.slice(section.indexOf('### Error codes'), section.indexOf('### Widget routes'));
  const rows = [...table.matchAll(/^\| `([A-Z]+-\d+)` \| (yes|no) \|/gm)].map((m) => [m[1], m[2] === 'yes']);
  expect(rows).toEqual(Object.entries(DEPOSIT_ERRORS).map(([code, e]) => [code, e.retryable]));
});
