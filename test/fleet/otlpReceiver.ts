/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for the telemetry tests: records every export (path,
 * headers, raw body) and answers 200 as a collector does. `spans()` decodes the JSON ones.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpExport {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; arrayValue?: unknown };
export type OtlpAttributes = readonly { readonly key: string; readonly value: OtlpValue }[];
export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly attributes: OtlpAttributes;
}
interface OtlpBody {
  readonly resourceSpans: readonly { readonly resource: { readonly attributes: OtlpAttributes }; readonly scopeSpans: readonly { readonly spans: readonly OtlpSpan[] }[] }[];
}

export interface OtlpReceiver {
  readonly endpoint: string;
  readonly exports: OtlpExport[];
  /** The spans of every OTLP/JSON export so far (with the service name of the resource each came from). */
  spans(): (OtlpSpan & { readonly service: unknown })[];
  close(): Promise<void>;
}

/** An attribute's value as a JS value (OTLP/JSON sends 64-bit integers as strings). */
export function attr(attributes: OtlpAttributes, key: string): unknown {
  const v = attributes.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : (v.stringValue ?? (v.intValue === undefined ? v.boolValue : Number(v.intValue)));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const json = req.headers['content-type']?.includes('json') === true;
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    spans: () =>
      exports
        .filter((e) => e.headers['content-type']?.includes('json') === true)
        .flatMap((e) =>
          (JSON.parse(e.body.toString('utf8')) as OtlpBody).resourceSpans.flatMap((r) =>
            r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, service: attr(r.resource.attributes, 'service.name') }))),
          ),
        ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
