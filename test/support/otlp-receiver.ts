import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exported span, as the OTLP/HTTP JSON export carried it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  service: string;
  attributes: Record<string, unknown>;
}

/** OTLP/JSON ids are hex (the spec's JSON mapping); a base64 encoder's are turned into hex too. */
const hex = (id: string | undefined) =>
  !id ? undefined : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex') || undefined;

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const value = (v: AnyValue) =>
  v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.boolValue ?? v.doubleValue;
const attributes = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

/**
 * A trace backend as small as a test needs: an OTLP/HTTP receiver of JSON exports (`OTEL_EXPORTER_OTLP_PROTOCOL=
 * http/json`) on `/v1/traces`, keeping every span it is sent.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server!: http.Server;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/v1/traces') this.take(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private take(body: any): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = String(attributes(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? [])
          this.spans.push({
            traceId: hex(s.traceId)!,
            spanId: hex(s.spanId)!,
            parentSpanId: hex(s.parentSpanId),
            name: s.name,
            kind: s.kind,
            service,
            attributes: attributes(s.attributes),
          });
    }
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
  }
}
