import { dateVar } from '../env';

/** The deprecation notice alps responses carry (Deprecation, Sunset, Link headers) */
export interface VersionsConfig {
  alpsDeprecatedAt: Date;
  alpsSunsetAt?: Date;
  alpsMigrationUrl: string;
}

export function versionsConfig(env: NodeJS.ProcessEnv): VersionsConfig {
  return {
    alpsDeprecatedAt: dateVar(env, 'ALPS_DEPRECATED_AT', '2026-04-01T00:00:00Z')!,
    alpsSunsetAt: dateVar(env, 'ALPS_SUNSET_AT'),
    alpsMigrationUrl: env.ALPS_MIGRATION_URL || '/versions',
  };
}
