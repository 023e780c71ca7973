/**
 * Prints every OpenAPI document the API serves (GET /openapi.json and /openapi/{version}.json, one per version), as
 * the server serializes them, so a change that must not alter them can be checked by comparing two dumps:
 * `npx tsx test/support/dump-openapi.ts > before.json`, change, dump again, `cmp before.json after.json`.
 */
import { hosts } from '../../src/api/app';
import { openApiDocument } from '../../src/http/openapi';
import { SUPPORTED_VERSIONS } from '../../src/http/versions';

for (const version of SUPPORTED_VERSIONS)
  process.stdout.write(`${JSON.stringify(openApiDocument(hosts(), 'registry', version))}\n`);
