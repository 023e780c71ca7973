import { defineRoute } from '../http/route';
import { MIGRATION } from './migration';
import { ALPS, BLANC } from '../http/versions';

/** Version discovery, and the migration notes the Deprecation `Link` of alps answers points to. */
export const versionRoutes = [
  defineRoute({
    method: 'get',
    path: '/versions',
    summary: 'API versions served, their deprecation dates, and the migration notes from alps to blanc',
    tags: ['ops'],
    auth: 'none',
    responses: { 200: { description: '{current, versions, migration}' } },
    async handler(_ctx, _input, { config }) {
      const { alpsDeprecatedAt, alpsSunsetAt } = config.versions;
      return {
        status: 200,
        body: {
          current: BLANC,
          versions: [
            {
              version: ALPS,
              status: 'deprecated',
              deprecatedAt: alpsDeprecatedAt.toISOString(),
              ...(alpsSunsetAt ? { sunsetAt: alpsSunsetAt.toISOString() } : {}),
              openapi: `/openapi/${ALPS}.json`,
            },
            { version: BLANC, status: 'current', openapi: `/openapi/${BLANC}.json` },
          ],
          migration: { from: ALPS, to: BLANC, changes: MIGRATION },
        },
      };
    },
  }),
];
