import { startEmbeddedPostgres } from '../../src/db/provision';

/**
 * A private embedded PostgreSQL as a process of its own (`node --import tsx test/support/postgres-process.ts <dir>
 * <port>`): jest's module sandbox cannot load the package (ESM only), and a suite that pauses the server needs one
 * that nobody else uses. Prints `ready <url>` once it accepts connections; SIGTERM stops it.
 */
const [dir, port] = process.argv.slice(2);
startEmbeddedPostgres(dir, Number(port), (line) => console.error(line)).then(
  (pg) => {
    console.log(`ready ${pg.url}`);
    const stop = () => void pg.stop().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
