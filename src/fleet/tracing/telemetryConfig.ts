/**
 * What the command's environment asks of tracing, read as Claude Code reads it:
 * `CLAUDE_CODE_ENABLE_TELEMETRY=1` turns it on; `OTEL_TRACES_EXPORTER` picks the exporters
 * (`otlp`, `console`, `none`; default `otlp`); `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or
 * `OTEL_EXPORTER_OTLP_PROTOCOL` the wire (`http/protobuf`, the OTLP default, or `http/json`);
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (with
 * `/v1/traces` appended) the receiver; `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` its headers
 * (`k=v,k2=v2`, values URL-encoded); `OTEL_SERVICE_NAME` the service.
 * Pure, so each rule has a test; the SDK is loaded only when this says "on" (`commandTelemetry.ts`,
 * imported lazily), so a command with telemetry off loads no OpenTelemetry code at all.
 */
import { identity, type MonoTypeOperatorFunction } from 'rxjs';
import type { LoopEvent } from '../../loop/types.js';

export type TraceProtocol = 'http/protobuf' | 'http/json';
export type TraceExporterName = 'otlp' | 'console';

export type TelemetryConfig =
  | { readonly kind: 'off'; readonly warnings: readonly string[] }
  | {
      readonly kind: 'on';
      readonly exporters: readonly TraceExporterName[];
      readonly protocol: TraceProtocol;
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly serviceName: string;
      readonly warnings: readonly string[];
    };

type Env = Readonly<Record<string, string | undefined>>;

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
const set = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

/** `k=v,k2=v2` as the OTLP exporter specification writes headers; a pair without `=` is skipped with a warning. */
export function parseOtlpHeaders(text: string | undefined, warnings: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) {
      warnings.push(`telemetry: ignoring the OTLP header ${JSON.stringify(pair.trim())} (expected key=value)`);
      continue;
    }
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.trim());
      } catch {
        return s.trim();
      }
    };
    headers[decode(pair.slice(0, at))] = decode(pair.slice(at + 1));
  }
  return headers;
}

export function telemetryConfigFromEnv(env: Env): TelemetryConfig {
  const warnings: string[] = [];
  if (!truthy(env['CLAUDE_CODE_ENABLE_TELEMETRY'])) return { kind: 'off', warnings };

  const exporters = new Set<TraceExporterName>();
  for (const name of (set(env['OTEL_TRACES_EXPORTER']) ?? 'otlp').split(',').map((n) => n.trim().toLowerCase())) {
    if (name === 'otlp' || name === 'console') exporters.add(name);
    else if (name !== 'none' && name !== '') warnings.push(`telemetry: OTEL_TRACES_EXPORTER '${name}' is not supported (otlp, console, none); ignored`);
  }
  if (exporters.size === 0) return { kind: 'off', warnings };

  const asked = set(env['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) ?? set(env['OTEL_EXPORTER_OTLP_PROTOCOL']) ?? 'http/protobuf';
  let protocol: TraceProtocol = 'http/protobuf';
  if (asked === 'http/json' || asked === 'http/protobuf') protocol = asked;
  else if (exporters.has('otlp')) {
    warnings.push(`telemetry: OTLP protocol '${asked}' is not supported (http/protobuf, http/json); traces are not exported over OTLP`);
    exporters.delete('otlp');
    if (exporters.size === 0) return { kind: 'off', warnings };
  }

  const base = (set(env['OTEL_EXPORTER_OTLP_ENDPOINT']) ?? 'http://localhost:4318').replace(/\/+$/, '');
  const url = set(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) ?? `${base}/v1/traces`;
  const headers = {
    ...parseOtlpHeaders(env['OTEL_EXPORTER_OTLP_HEADERS'], warnings),
    ...parseOtlpHeaders(env['OTEL_EXPORTER_OTLP_TRACES_HEADERS'], warnings),
  };
  return { kind: 'on', exporters: [...exporters], protocol, url, headers, serviceName: set(env['OTEL_SERVICE_NAME']) ?? 'rxagent', warnings };
}

export interface CommandTelemetry {
  /** `traceAgentRun` for one turn of `sessionId`, under the run's parent context. */
  traceTurn(sessionId: string): MonoTypeOperatorFunction<LoopEvent>;
  /** A span for work this process hands to another (a submitted job), and the `traceparent` that continues it. */
  handOff(name: string, attributes?: Readonly<Record<string, string>>): { readonly traceparent: string | undefined; end(): void };
  /** The `traceparent` of a running tool call's span (an MCP call sends it on); undefined when not traced. */
  traceparentFor(toolUseId: string, toolName: string): string | undefined;
  /** Exports what is still buffered; the command awaits it before it exits. */
  shutdown(): Promise<void>;
}

/** Telemetry off: every operator passes events through, nothing is recorded or loaded. */
export const NO_TELEMETRY: CommandTelemetry = {
  traceTurn: () => identity,
  handOff: () => ({ traceparent: undefined, end: () => undefined }),
  traceparentFor: () => undefined,
  shutdown: async () => undefined,
};
