/**
 * The command's tracing: when `telemetryConfigFromEnv` says "on", an OpenTelemetry SDK tracer
 * provider with the configured exporters (OTLP over HTTP as protobuf or JSON, or the console),
 * and `traceAgentRun` over each turn's events. The SDK and exporters are imported here only, and
 * only when tracing is on: the library needs nothing but `@opentelemetry/api`, and a command with
 * telemetry off loads none of it.
 *
 * The run span's parent comes from a W3C `traceparent` (a job's, or the `TRACEPARENT` variable a
 * CI system or a calling process sets), so a worker's run joins the trace of whoever submitted it.
 */
import { context as otelContext, ROOT_CONTEXT, trace, type Context, type Span, type TextMapPropagator, type Tracer } from '@opentelemetry/api';
import { NO_TELEMETRY, type CommandTelemetry, type TelemetryConfig } from './telemetryConfig.js';
import { ToolSpans } from './toolSpans.js';
import { traceAgentRun } from './traceAgentRun.js';

/** The W3C context a `traceparent` value names (the root context when absent or malformed). */
function contextOf(propagator: TextMapPropagator, traceparent: string | undefined): Context {
  if (traceparent === undefined || traceparent.trim() === '') return ROOT_CONTEXT;
  return propagator.extract(ROOT_CONTEXT, { traceparent: traceparent.trim() }, {
    get: (carrier, key) => carrier[key as keyof typeof carrier],
    keys: (carrier) => Object.keys(carrier),
  });
}

export async function startCommandTelemetry(
  config: TelemetryConfig,
  options: { readonly version: string; readonly traceparent?: string | undefined },
): Promise<CommandTelemetry> {
  if (config.kind === 'off') return NO_TELEMETRY;
  const [{ BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, { resourceFromAttributes }, { W3CTraceContextPropagator }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
  ]);
  const exporters = await Promise.all(
    config.exporters.map(async (name) => {
      if (name === 'console') return new ConsoleSpanExporter();
      const { OTLPTraceExporter } =
        config.protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter({ url: config.url, headers: { ...config.headers }, timeoutMillis: 5_000 });
    }),
  );
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': options.version }),
    spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter)),
  });
  const tracer: Tracer = provider.getTracer('rxagent', options.version);
  const propagator = new W3CTraceContextPropagator();
  const parent = contextOf(propagator, options.traceparent);
  const traceparentOf = (span: Span): string | undefined => {
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(otelContext.active(), span), carrier, { set: (c, key, value) => (c[key] = value) });
    return carrier['traceparent'];
  };
  const toolSpans = new ToolSpans();
  return {
    traceTurn: (sessionId) => traceAgentRun(tracer, { parent, sessionId, toolSpans }),
    handOff: (name, attributes = {}) => {
      const span = tracer.startSpan(name, { attributes: { ...attributes } }, parent);
      return { traceparent: traceparentOf(span), end: () => span.end() };
    },
    traceparentFor: (toolUseId, toolName) => {
      const span = toolSpans.spanFor(toolUseId, toolName);
      return span ? traceparentOf(span) : undefined;
    },
    shutdown: () => provider.shutdown(),
  };
}
