import type { Context, Middleware, Next } from 'koa';
import { VersionError } from './errors';

/** Dated API versions (spec: Versioning). alps is deprecated and frozen; blanc is current. */
export const ALPS = '2026-01.alps';
export const BLANC = '2026-04.blanc';
export const SUPPORTED_VERSIONS = [ALPS, BLANC] as const;
export type ApiVersion = (typeof SUPPORTED_VERSIONS)[number];

const VERSION_PATTERN = /^\d{4}-\d{2}\.[a-z0-9]+$/;
const VERSION_HEADER = 'x-api-version';

/**
 * The version a request asked for, read from the header alone so that failures raised before routing (a body that
 * does not parse, an unknown path) are rendered in that version's error body too. Unserved values read as alps
 * here; the `apiVersion` middleware refuses them on every routed request.
 */
export function requestedVersion(ctx: Context): ApiVersion {
  return ctx.get(VERSION_HEADER) === BLANC ? BLANC : ALPS;
}

/** No header means alps; malformed or unserved values are refused before any work. */
export function apiVersion(): Middleware {
  return async (ctx: Context, next: Next) => {
    const header = ctx.get(VERSION_HEADER);
    if (header) {
      if (!VERSION_PATTERN.test(header))
        throw new VersionError(`Malformed x-api-version "${header}": expected YYYY-MM.name`);
      if (!(SUPPORTED_VERSIONS as readonly string[]).includes(header)) {
        throw new VersionError(`Unsupported x-api-version "${header}"`, { supported: SUPPORTED_VERSIONS });
      }
    }
    ctx.state.apiVersion = (header || ALPS) as ApiVersion;
    await next();
  };
}
