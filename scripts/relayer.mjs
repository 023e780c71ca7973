/** `npm run relayer`: the relayer (src/main/relayer.ts), from the sources or the build (scripts/launch.mjs). */
import { launch } from './launch.mjs';

launch('relayer');
