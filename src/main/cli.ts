import type { Db } from '../db/types';
import { openDatabase } from '../db/data-source';
import { proveAccount } from '../projects/account-store';
import { createProject } from '../projects/api-keys';
import { setSponsorship } from '../projects/sponsorship-store';
import { projectExists, setRateLimit } from '../projects/store';
import { ConfigError } from '../config';
import { exitOnError, loadRuntime, type Runtime } from '../runtime';
import { addEndpoint, EndpointError } from '../webhooks/endpoint-store';
import { deadLetters } from '../outbox/store';
import { retryDeadLetters } from '../intents/outbox-owners';
import { WEBHOOK_TYPES, type WebhookType } from '../webhooks/types';
import { DomainError } from '../errors';
import { createRelayerKey } from '../relayers/keys';
import { listRelayerKeys, revokeRelayerKey } from '../relayers/store';

const USAGE = [
  'usage: npm run cli -- projects create <name>',
  '       npm run cli -- projects limit <projectId> <rps> <burst>      (its own quota; "default" for both resets it)',
  '       npm run cli -- projects sponsorship <projectId> on|off     (may its quotes have fees sponsored; off by default)',
  '       npm run cli -- accounts add <projectId> <accountAddress>   (the project may request withdrawals for it)',
  '       npm run cli -- webhooks add <projectId> <url> [--types a,b]  (prints {id, url, secret})',
  '       npm run cli -- relayers add <name>                          (prints {relayerId, relayerKey}: the key is shown once)',
  '       npm run cli -- relayers revoke <name>                       (its key stops working within 30 s)',
  '       npm run cli -- relayers list',
  '       npm run cli -- outbox dead-letters                          (rows Temporal refused, no longer retried)',
  '       npm run cli -- outbox retry <signalId|workflowId|all>        (requeue dead-lettered rows for the sweeper; not those of ended lifecycles)',
].join('\n');

type Command = (db: Db, rt: Runtime) => Promise<unknown>;
const uuid = /^[0-9a-f-]{36}$/i;

async function requireProject(db: Db, projectId: string): Promise<void> {
  if (!(await projectExists(db, projectId))) throw new ConfigError(`no project ${projectId}`);
}

function parse(argv: string[]): Command | undefined {
  const [group, command, ...rest] = argv;
  if (group === 'projects' && command === 'create' && rest.length === 1 && rest[0].trim()) {
    return (db) => createProject(db, rest[0].trim());
  }
  if (group === 'projects' && command === 'limit' && rest.length === 3 && uuid.test(rest[0])) {
    const reset = rest[1] === 'default' && rest[2] === 'default';
    const [rps, burst] = [Number(rest[1]), Number(rest[2])];
    if (!reset && !(Number.isInteger(rps) && rps >= 1 && Number.isInteger(burst) && burst >= 0))
      throw new ConfigError('rps must be an integer >= 1 and burst an integer >= 0');
    return async (db) => {
      await requireProject(db, rest[0]);
      await setRateLimit(db, rest[0], reset ? { rps: null, burst: null } : { rps, burst });
      return { projectId: rest[0], rateLimit: reset ? 'default' : { rps, burst } };
    };
  }
  if (
    group === 'projects' &&
    command === 'sponsorship' &&
    rest.length === 2 &&
    uuid.test(rest[0]) &&
    (rest[1] === 'on' || rest[1] === 'off')
  ) {
    return async (db) => {
      if (!(await setSponsorship(db, rest[0], rest[1] === 'on'))) throw new ConfigError(`no project ${rest[0]}`);
      return { projectId: rest[0], sponsorship: rest[1] === 'on' };
    };
  }
  if (
    group === 'accounts' &&
    command === 'add' &&
    rest.length === 2 &&
    uuid.test(rest[0]) &&
    /^0x[0-9a-fA-F]{40}$/.test(rest[1])
  ) {
    return async (db) => {
      await requireProject(db, rest[0]);
      await proveAccount(db, rest[0], rest[1], 'operator');
      return { projectId: rest[0], account: rest[1].toLowerCase() };
    };
  }
  if (
    group === 'webhooks' &&
    command === 'add' &&
    (rest.length === 2 || (rest.length === 4 && rest[2] === '--types')) &&
    uuid.test(rest[0])
  ) {
    const types = rest[3]?.split(',').map((t) => t.trim());
    if (types?.some((t) => !(WEBHOOK_TYPES as readonly string[]).includes(t)))
      throw new ConfigError(`--types takes a comma list of: ${WEBHOOK_TYPES.join(', ')}`);
    return async (db, rt) => {
      await requireProject(db, rest[0]);
      try {
        const endpoint = await addEndpoint(
          db,
          rest[0],
          rest[1],
          (types as WebhookType[] | undefined) ?? null,
          rt.config.webhooks,
        );
        return { id: endpoint.id, url: endpoint.url, types: endpoint.types, secret: endpoint.secret };
      } catch (e) {
        throw e instanceof EndpointError ? new ConfigError(e.message) : e;
      }
    };
  }
  if (group === 'relayers' && command === 'add' && rest.length === 1 && /^[\w.-]{1,64}$/.test(rest[0])) {
    return (db) =>
      createRelayerKey(db, rest[0]).catch((e) => {
        throw e instanceof DomainError ? new ConfigError(e.message) : e;
      });
  }
  if (group === 'relayers' && command === 'revoke' && rest.length === 1) {
    return async (db) => {
      if (!(await revokeRelayerKey(db, rest[0]))) throw new ConfigError(`no relayer ${rest[0]} with a live key`);
      return { relayer: rest[0], revoked: true };
    };
  }
  if (group === 'relayers' && command === 'list' && rest.length === 0) return (db) => listRelayerKeys(db);
  if (group === 'outbox' && command === 'dead-letters' && rest.length === 0) return (db) => deadLetters(db);
  if (group === 'outbox' && command === 'retry' && rest.length === 1 && rest[0].trim()) {
    return async (db, rt) => {
      const { requeued, refused } = await retryDeadLetters(db, rest[0].trim(), rt.config);
      // A row named on its own and refused is a conflict (exit 1); `all` requeues what it may and lists the rest.
      if (refused.length && rest[0].trim() !== 'all') process.exitCode = 1;
      return { requeued, ...(refused.length ? { refused } : {}) };
    };
  }
  return undefined;
}

/** Operator CLI. Prints JSON on its last line; created keys and secrets are only shown once. */
async function main(argv: string[]) {
  const run = parse(argv);
  if (!run) {
    console.error(USAGE);
    process.exit(2);
  }
  const rt = loadRuntime();
  const db = await openDatabase(rt.databaseUrl, 1);
  try {
    console.log(JSON.stringify(await run(db, rt)));
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).catch(exitOnError);
