import { openDatabase } from '../db/data-source';
import { createProject } from '../projects/api-keys';
import { exitOnError, loadRuntime } from '../runtime';

const USAGE = 'usage: npm run cli -- projects create <name>';

/** Operator CLI. Prints JSON; the created key is only shown once (it is stored hashed). */
async function main(argv: string[]) {
  const [group, command, ...rest] = argv;
  if (group !== 'projects' || command !== 'create' || rest.length !== 1 || !rest[0].trim()) {
    console.error(USAGE);
    process.exit(2);
  }
  const db = await openDatabase(loadRuntime().databaseUrl, 1);
  try {
    console.log(JSON.stringify(await createProject(db, rest[0].trim())));
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).catch(exitOnError);
