import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey } from 'viem/accounts';
import { Config, ConfigError, Secrets } from './config';

const NAMES: Record<keyof Secrets, string> = {
  indexerApiKey: 'INDEXER_API_KEY',
  orchestratorPrivateKey: 'ORCHESTRATOR_PRIVATE_KEY',
  allocatorPrivateKey: 'ALLOCATOR_PRIVATE_KEY',
  fillAttesterPrivateKey: 'FILL_ATTESTER_PRIVATE_KEY',
  complianceSessionKey: 'COMPLIANCE_SESSION_KEY',
};

function generate(name: keyof Secrets): string {
  if (name === 'indexerApiKey') return `idx_${randomBytes(24).toString('hex')}`;
  if (name === 'complianceSessionKey') return randomBytes(32).toString('base64url');
  return generatePrivateKey();
}

/**
 * Production refuses to start without every secret it uses (the fill attester's key only where an arbiter is
 * configured). Elsewhere a missing secret is generated once and kept in `<dataDir>/secrets.json`, so keys (and the
 * addresses derived from them) stay stable across restarts.
 */
export function resolveSecrets(config: Config): { secrets: Secrets; generated: string[] } {
  const used = (k: keyof Secrets) =>
    k !== 'fillAttesterPrivateKey' || config.env !== 'production' || config.intents.arbiters.size > 0;
  const missing = (Object.keys(NAMES) as (keyof Secrets)[]).filter((k) => !config.secrets[k] && used(k));
  if (missing.length === 0) return { secrets: config.secrets as Secrets, generated: [] };
  if (config.env === 'production') {
    throw new ConfigError(
      `missing required secret(s): ${missing.map((k) => NAMES[k]).join(', ')} (NODE_ENV=production)`,
    );
  }
  const file = path.join(config.dataDir, 'secrets.json');
  const stored: Partial<Secrets> = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  const generated: string[] = [];
  for (const key of missing) {
    if (!stored[key]) {
      (stored as Record<string, string>)[key] = generate(key);
      generated.push(NAMES[key]);
    }
  }
  if (generated.length > 0) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  }
  return { secrets: { ...stored, ...stripUndefined(config.secrets) } as Secrets, generated };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
