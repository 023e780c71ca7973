# One image for both roles: `npm run api` or `npm run worker` (chosen by the compose service's command).
# The build needs production dependencies only (scripts/build.mjs), so one `npm ci --omit=dev` serves the build and
# the image, and no stage installs the dev tooling (tsx, jest, embedded PostgreSQL, ...).
FROM node:20-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=dev keeps typescript, a dev dependency, because viem's packages name it an optional peer (for their types
# only): nothing at run time loads it (test/unit/image.test.ts).
RUN npm ci --omit=dev \
  && rm -rf node_modules/typescript node_modules/.bin/tsc node_modules/.bin/tsserver \
  && npm cache clean --force

# The JavaScript in dist/ and the workflow bundle, from the sources.
FROM dependencies AS build
COPY scripts ./scripts
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY solidity/artifacts.json ./solidity/
RUN npm run build

# The image: production dependencies, the build and the launchers of the CLI and the relayer; no sources.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# The workflows bundled at build time: a worker starts without bundling them (docs/configuration.md).
ENV WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js
COPY package.json package-lock.json ./
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY scripts/launch.mjs scripts/cli.mjs scripts/relayer.mjs ./scripts/
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
