import { ConfigError } from '../../src/env';
import { activeTraceId, currentTraceContext, inSpan } from '../../src/tracing/context';
import { processTracing, startTracing } from '../../src/tracing/start';

describe('tracing off', () => {
  test('without an OTLP endpoint nothing starts, rows record no trace context and spans run their work', async () => {
    expect(startTracing('api', {})).toBeUndefined();
    expect(startTracing('api', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' })).toBe(
      undefined,
    );
    expect(processTracing()).toBeUndefined();
    await expect(
      inSpan(
        'outbox start x',
        { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        {},
        async () => [currentTraceContext(), activeTraceId()],
      ),
    ).resolves.toEqual([null, undefined]);
  });

  test('a protocol the exporters do not speak is refused before anything starts', () => {
    expect(() =>
      startTracing('api', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow(ConfigError);
    expect(processTracing()).toBeUndefined();
  });
});
