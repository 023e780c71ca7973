import type { Context, Middleware, Next } from 'koa';
import type { VersionsConfig } from './config';
import { ALPS, BLANC } from '../http/versions';

/**
 * Answers of version-specific routes under alps say that alps is deprecated: `Deprecation` (RFC 9745, `@<unix>`),
 * `Sunset` (RFC 8594) once a date is set, and `Link`s to the migration notes and the successor version's document.
 * Set whatever the outcome, errors included.
 */
export function deprecationNotice(versions: VersionsConfig): Middleware {
  const link = [
    `<${versions.alpsMigrationUrl}>; rel="deprecation"`,
    `</openapi/${BLANC}.json>; rel="successor-version"`,
  ].join(', ');
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      if (ctx.state.apiVersion === ALPS && ctx.state.versionedRoute) {
        ctx.set('deprecation', `@${Math.floor(versions.alpsDeprecatedAt.getTime() / 1000)}`);
        if (versions.alpsSunsetAt) ctx.set('sunset', versions.alpsSunsetAt.toUTCString());
        ctx.set('link', link);
      }
    }
  };
}
