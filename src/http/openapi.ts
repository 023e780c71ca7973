import type { RouteDef } from './route';
import type { Schema } from './schema';
import { withArrayLimits } from './limits';
import { ERROR_CODES } from './envelope';
import { BLANC, type ApiVersion } from './versions';

export interface Host {
  prefix: string;
  name: string;
  routes: RouteDef[];
}

const errorBody: Schema = {
  type: 'object',
  required: ['message', 'errors', 'traceId'],
  properties: {
    message: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['message'],
        properties: { message: { type: 'string' }, context: { type: 'object' } },
      },
    },
    traceId: { type: 'string' },
  },
};

/** The deposit processor's error body (spec: Errors → Deposit-processing error body). */
const depositErrorBody: Schema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string' },
    code: { type: 'string' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        required: ['message'],
        properties: { message: { type: 'string' }, path: { type: 'array' }, code: { type: 'string' } },
      },
    },
    traceId: { type: 'string' },
  },
};

/** 2026-04.blanc: every non-2xx answer. */
const envelopeBody: Schema = {
  type: 'object',
  required: ['code', 'message', 'traceId'],
  properties: {
    code: { type: 'string', description: `one of ${Object.keys(ERROR_CODES).join(', ')}; more may be added` },
    message: { type: 'string' },
    traceId: { type: 'string' },
    details: {},
  },
};

function parameters(where: 'path' | 'query', schema: Schema | undefined) {
  const props = (schema?.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>((schema?.required as string[]) ?? []);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
  }));
}

/**
 * OpenAPI 3.1 for one API version, from the same schemas that validate requests, so the document cannot drift from
 * behaviour. The legacy host and the deposit processor are the same in every version.
 */
export function openApiDocument(hosts: Host[], registryVersion: string, apiVersion: ApiVersion) {
  const paths: Record<string, Record<string, unknown>> = {};
  const standardError = apiVersion === BLANC ? envelopeBody : errorBody;
  for (const host of hosts) {
    for (const r of host.routes) {
      if (r.versions && !r.versions.includes(apiVersion)) continue;
      const path = `${host.prefix}${r.path}`;
      const security = r.auth === 'none' ? [] : [{ [r.auth]: [] }];
      paths[path] ??= {};
      paths[path][r.method] = {
        summary: r.summary,
        tags: [host.name, ...r.tags],
        security,
        parameters: [
          ...parameters('path', withArrayLimits(r.params)),
          ...parameters('query', withArrayLimits(r.query)),
        ],
        ...(r.body
          ? { requestBody: { required: true, content: { 'application/json': { schema: withArrayLimits(r.body) } } } }
          : {}),
        responses: {
          ...Object.fromEntries(
            Object.entries(r.responses).map(([status, res]) => [
              status,
              {
                description: res.description,
                ...(res.schema ? { content: { 'application/json': { schema: res.schema } } } : {}),
                ...(res.mediaType ? { content: { [res.mediaType]: {} } } : {}),
              },
            ]),
          ),
          '4XX': {
            description: 'client error',
            content: {
              'application/json': {
                schema:
                  host.name === 'deposit-processor'
                    ? depositErrorBody
                    : host.name === 'legacy'
                      ? errorBody
                      : standardError,
              },
            },
          },
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Cross-chain intent orchestrator', version: apiVersion, 'x-registry-version': registryVersion },
    // Every request may name its version; the document describes the one it was asked for.
    'x-api-version': apiVersion,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        indexerKey: { type: 'apiKey', in: 'header', name: 'x-indexer-key' },
        relayerKey: { type: 'apiKey', in: 'header', name: 'x-relayer-key' },
        session: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'a compliance customer session (POST /deposit-processor/compliance/sessions), 15 minutes',
        },
      },
    },
    paths,
  };
}
