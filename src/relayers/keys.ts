import { randomBytes } from 'node:crypto';
import type { Db } from '../db/types';
import { DomainError } from '../errors';
import { CachedKeys, hashKey } from '../projects/api-keys';
import { insertRelayerKey, liveRelayer } from './store';

/** A new relayer's key, shown once (only its hash is kept). A name already given is refused. */
export async function createRelayerKey(db: Db, name: string): Promise<{ relayerId: string; relayerKey: string }> {
  const relayerKey = `rk_${randomBytes(32).toString('base64url')}`;
  const relayerId = await insertRelayerKey(db, name, hashKey(relayerKey), relayerKey.slice(0, 10));
  if (!relayerId) throw new DomainError('CONFLICT', `A relayer named ${name} exists: revoke it or choose another name`);
  return { relayerId, relayerKey };
}

export interface Relayer {
  id: string;
  name: string;
}

/** Relayer keys resolved to relayers, cached as project keys are (CachedKeys). */
export class RelayerKeyStore extends CachedKeys<Relayer> {
  constructor(db: Db) {
    super((hash) => liveRelayer(db, hash), 30_000, 1000);
  }
}
