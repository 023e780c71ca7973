import fs from 'node:fs';
import path from 'node:path';
import type { Context } from 'koa';
import { defineRoute, routeGroup } from '../../src/http/route';
import { address, bodyAjv, paramAjv } from '../../src/http/schema';
import type { Services } from '../../src/http/services';

// The type half of these tests is checked when this file compiles (`npm run typecheck`, the first step of `npm
// test`; jest itself only transpiles): each `@ts-expect-error` marks a use its schema forbids, and fails the
// compile if that use is allowed after all.

const body = {
  type: 'object',
  required: ['amount'],
  properties: { amount: { type: 'integer' }, to: address, note: { type: 'string', default: 'none' } },
} as const;
const total = { type: 'object', required: ['total'], properties: { total: { type: 'integer' } } } as const;
const ctx = {} as Context;
const services = {} as Services;

describe('types from schemas', () => {
  it('types from schemas: a handler reads its input as its schemas declare it and answers as its response schema does', async () => {
    const route = defineRoute({
      method: 'post',
      path: '/totals',
      summary: 'a total',
      tags: ['test'],
      auth: 'none',
      body,
      query: { type: 'object', properties: { twice: { type: 'boolean', default: false } } },
      responses: { 200: { description: 'the total', schema: total }, 404: { description: 'none' } },
      async handler(_ctx, input) {
        const amount: number = input.body.amount;
        const to: `0x${string}` | undefined = input.body.to;
        const note: string = input.body.note; // defaulted, so always there once validated
        // @ts-expect-error an integer is not a string
        const wrong: string = input.body.amount;
        // @ts-expect-error a query flag the schema does not declare is unknown
        const unknownFlag: boolean = input.query.thrice;
        void [to, note, wrong, unknownFlag];
        return { status: 200, body: { total: input.query.twice ? amount * 2 : amount } };
      },
    });
    defineRoute({
      method: 'get',
      path: '/totals',
      summary: 'a total, wrongly answered',
      tags: ['test'],
      auth: 'none',
      responses: { 200: { description: 'the total', schema: total } },
      // @ts-expect-error the response schema's total is an integer
      async handler() {
        return { status: 200, body: { total: 'four' } };
      },
    });

    // The schema is the object ajv validates, as declared; the handler gets what validation leaves.
    expect(route.body).toBe(body);
    const input = { amount: 2 };
    expect(bodyAjv.validate(body, input)).toBe(true);
    expect(input).toEqual({ amount: 2, note: 'none' });
    expect(await route.handler(ctx, { body: input, query: { twice: true }, params: {} }, services)).toEqual({
      status: 200,
      body: { total: 4 },
    });
  });

  it("types from schemas: a group's shared params reach each handler of the group typed", async () => {
    const params = { type: 'object', required: ['account'], properties: { account: address } } as const;
    const accountRoute = routeGroup({ tags: ['test'], auth: 'apiKey', params });
    const route = accountRoute('get', '/accounts/{account}', {
      summary: 'an account',
      responses: { 200: { description: 'the account' } },
      async handler(_ctx, { params: p }) {
        const account: `0x${string}` = p.account;
        // @ts-expect-error the group's params declare no id
        const id: string = p.id;
        void id;
        return { status: 200, body: { account } };
      },
    });
    const account = `0x${'ab'.repeat(20)}`;
    const raw = { account };
    expect(paramAjv.validate(route.params!, raw)).toBe(true);
    expect(route.auth).toBe('apiKey');
    expect(await route.handler(ctx, { body: {}, query: {}, params: raw }, services)).toEqual({
      status: 200,
      body: { account },
    });
  });

  it('types from schemas: nothing in src casts through unknown (the route definers type what they are given)', () => {
    const files = (dir: string): string[] =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) =>
          e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
        );
    const src = path.join(__dirname, '../../src');
    const casts = files(src).flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.includes('as unknown as') ? [`${path.relative(src, file)}:${i + 1}`] : [])),
    );
    expect(casts).toEqual([]);
  });
});
