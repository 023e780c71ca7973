import type { Context } from 'koa';

/** The project an authenticated request acts for (set by the API-key middleware, src/http/middleware.ts). */
export const project = (ctx: Context): string => ctx.state.projectId as string;
