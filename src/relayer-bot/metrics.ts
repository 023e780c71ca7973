import http from 'node:http';
import { Counter, Registry } from 'prom-client';

/**
 * The relayer's counters, for Prometheus at `GET /metrics` on RELAYER_METRICS_PORT (0: not served). They count what
 * this process saw mined since it started: a relayer restarted after a crash counts the steps it resumed.
 */
export interface RelayerMetrics {
  registry: Registry;
  fills: Counter<'chain' | 'status'>;
  claims: Counter<'chain' | 'status'>;
  gasSpentWei: Counter<'chain'>;
  feesEarned: Counter<'symbol'>;
  intents: Counter<'outcome'>;
}

export function createRelayerMetrics(): RelayerMetrics {
  const registry = new Registry();
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  return {
    registry,
    fills: counter('relayer_fills_total', 'fill transactions mined, by destination chain and status', [
      'chain',
      'status',
    ]),
    claims: counter('relayer_claims_total', 'claim transactions mined, by origin chain and status', [
      'chain',
      'status',
    ]),
    gasSpentWei: counter('relayer_gas_spent_wei_total', 'wei paid for the gas of mined transactions', ['chain']),
    // A loss (fees below zero) is not counted here; the outcome's log line shows it.
    feesEarned: counter('relayer_fees_earned_total', "intents' claims less their fills, in a token's smallest unit", [
      'symbol',
    ]),
    intents: counter('relayer_intents_total', 'intents relayed to an end: claimed, skipped or failed', ['outcome']),
  };
}

/** Serves `GET /metrics` on loopback and every interface alike (a scrape target), nothing else. */
export function serveMetrics(metrics: RelayerMetrics, port: number): http.Server {
  return http
    .createServer((req, res) => {
      if (req.url !== '/metrics') return res.writeHead(404).end();
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    })
    .listen(port);
}
