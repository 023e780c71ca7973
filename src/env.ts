/**
 * Parsing of environment variables, shared by src/config.ts and the per-feature settings (src/<feature>/config.ts).
 * Its own module so that the feature modules never import src/config.ts, which imports them.
 */
export class ConfigError extends Error {}

export type NodeEnv = 'development' | 'production' | 'test';

export function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = 65535): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** A group of integer settings, declared as `key: [VARIABLE, fallback, min, max]`; read with int(). */
export function ints<K extends string>(
  env: NodeJS.ProcessEnv,
  spec: Record<K, [name: string, fallback: number, min: number, max: number]>,
): Record<K, number> {
  const out = {} as Record<K, number>;
  for (const key of Object.keys(spec) as K[]) {
    const [name, fallback, min, max] = spec[key];
    out[key] = int(env, name, fallback, min, max);
  }
  return out;
}

export function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${raw}"`);
  return raw === 'true';
}

export function seconds(env: NodeJS.ProcessEnv, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (values.length > 30 || values.some((v) => !Number.isInteger(v) || v < 0 || v > 604_800)) {
    throw new ConfigError(`${name} must be up to 30 comma-separated whole seconds (each at most a week), got "${raw}"`);
  }
  return values;
}

export function dateVar(env: NodeJS.ProcessEnv, name: string, fallback?: string): Date | undefined {
  const raw = env[name] || fallback;
  if (!raw) return undefined;
  const date = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(date.getTime()))
    throw new ConfigError(`${name} must be an ISO 8601 date, got "${raw}"`);
  return date;
}

export function usd(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]{1,9}(\.[0-9]{1,6})?$/.test(raw))
    throw new ConfigError(`${name} must be a non-negative USD amount (e.g. 1 or 0.5), got "${raw}"`);
  return Number(raw);
}

export function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name] || fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function sessionKey(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (raw.length < 32) throw new ConfigError(`${name} must be at least 32 characters (an HS256 key)`);
  return raw;
}

export function privateKey(env: NodeJS.ProcessEnv, name: string): `0x${string}` | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) throw new ConfigError(`${name} must be a 0x-prefixed 32-byte hex private key`);
  return raw as `0x${string}`;
}

export function addressVar(env: NodeJS.ProcessEnv, name: string, fallback: `0x${string}`): `0x${string}` {
  const raw = env[name] || fallback;
  if (!/^0x[0-9a-fA-F]{40}$/.test(raw)) throw new ConfigError(`${name} must be a 0x-prefixed 20-byte address`);
  return raw as `0x${string}`;
}
