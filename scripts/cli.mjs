/** `npm run cli`: the operator CLI (src/main/cli.ts), from the sources or the build (scripts/launch.mjs). */
import { launch } from './launch.mjs';

launch('cli');
