import { addressVar } from '../env';

/**
 * The Compact deployment that holds this allocator's locks (docs/configuration.md: COMPACT_ADDRESS). Intents are
 * claimed and withdrawals allocated in that one contract, so both read it here. The default is the address whose
 * domain the published 1.x client signs intents in.
 */
export const compactAddress = (env: NodeJS.ProcessEnv) =>
  addressVar(env, 'COMPACT_ADDRESS', '0x73d2dc0c21fca4ec1601895d50df7f5624f07d3f');
