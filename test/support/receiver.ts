import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  verifiedWith: string[];
  answer: number | 'hang';
}

/** What the receiver answers to the nth request (1-based) for one webhook-id. */
export type Behaviour = (d: Delivery, nthForId: number) => number | 'hang';

/**
 * A webhook receiver as an integrator writes one: verifies each request with the `standardwebhooks` package and
 * each secret it was given, records it, and deduplicates on webhook-id (`accepted` holds each id once).
 */
export class Receiver {
  readonly requests: Delivery[] = [];
  readonly accepted = new Map<string, Delivery>();
  /** requests with no answer yet, and the most there ever were at once */
  open = 0;
  maxOpen = 0;
  private readonly hanging = new Set<http.ServerResponse>();
  private server!: http.Server;
  url = '';

  constructor(
    public secrets: string[],
    public behaviour: Behaviour = () => 200,
  ) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string) {
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    const verifiedWith = this.secrets.filter((s) => {
      try {
        new Webhook(s).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    const d: Delivery = {
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body,
      json: JSON.parse(body),
      verifiedWith,
      answer: 200,
    };
    const nth = this.requests.filter((r) => r.id === d.id).length + 1;
    d.answer = verifiedWith.length ? this.behaviour(d, nth) : 401;
    this.requests.push(d);
    if (d.answer === 'hang') {
      this.open++;
      this.maxOpen = Math.max(this.maxOpen, this.open);
      this.hanging.add(res);
      res.on('close', () => {
        this.open--;
        this.hanging.delete(res);
      });
      return;
    }
    if (d.answer >= 200 && d.answer < 300 && !this.accepted.has(d.id)) this.accepted.set(d.id, d);
    res.writeHead(d.answer, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: d.answer < 300 }));
  }

  /** Answers `count` of the requests held open with `status`, as a receiver that was slow finally does. */
  release(count: number, status = 500): void {
    for (const res of [...this.hanging].slice(0, count)) {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: status < 300 }));
    }
  }

  /** From now on answers every request with `status`, those held open included. */
  stopHanging(status = 500): void {
    this.behaviour = () => status;
    this.release(this.hanging.size, status);
  }

  forId(id: string): Delivery[] {
    return this.requests.filter((r) => r.id === id);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
  }
}

/** Receivers for one suite, each started on request and all closed after it. */
export function suiteReceivers(): (behaviour?: Behaviour) => Promise<Receiver> {
  const started: Receiver[] = [];
  afterAll(() => Promise.all(started.map((r) => r.close())));
  return async (behaviour) => {
    const r = await new Receiver([], behaviour).start();
    started.push(r);
    return r;
  };
}
