import { openDatabase } from '../db/data-source';
import { proveAccount } from '../projects/accounts';
import { createProject } from '../projects/api-keys';
import { ConfigError } from '../config';
import { exitOnError, loadRuntime } from '../runtime';

const USAGE = [
  'usage: npm run cli -- projects create <name>',
  '       npm run cli -- accounts add <projectId> <accountAddress>   (the project may request withdrawals for it)',
].join('\n');

/** Operator CLI. Prints JSON; the created key is only shown once (it is stored hashed). */
async function main(argv: string[]) {
  const [group, command, ...rest] = argv;
  const run =
    group === 'projects' && command === 'create' && rest.length === 1 && rest[0].trim()
      ? async (db: Awaited<ReturnType<typeof openDatabase>>) => createProject(db, rest[0].trim())
      : group === 'accounts' && command === 'add' && rest.length === 2 && /^[0-9a-f-]{36}$/i.test(rest[0]) && /^0x[0-9a-fA-F]{40}$/.test(rest[1])
        ? async (db: Awaited<ReturnType<typeof openDatabase>>) => {
          if (!(await db.query('SELECT 1 FROM projects WHERE id = $1', [rest[0]])).length) throw new ConfigError(`no project ${rest[0]}`);
          await proveAccount(db.manager, rest[0], rest[1], 'operator');
          return { projectId: rest[0], account: rest[1].toLowerCase() };
        }
        : undefined;
  if (!run) {
    console.error(USAGE);
    process.exit(2);
  }
  const db = await openDatabase(loadRuntime().databaseUrl, 1);
  try {
    console.log(JSON.stringify(await run(db)));
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).catch(exitOnError);
