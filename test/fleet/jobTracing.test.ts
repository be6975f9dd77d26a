/**
 * A run's trace crosses the queue: `rxagent submit` with telemetry on records a `submit_job`
 * span and puts its W3C traceparent in the job; the `rxagent worker` that takes the job (another
 * process, another HOME) starts the run's `invoke_agent` span under it, so the submitter and the
 * worker's model and tool spans are one trace at the OTLP receiver. Real PostgreSQL (throw-away
 * cluster), real processes, the scripted model and the receiver on 127.0.0.1.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, removeSandboxes, runCli } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { spawnWorker } from './workerProcess.js';
import { attr, startOtlpReceiver, type OtlpReceiver } from './otlpReceiver.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

describe.skipIf(pgUnavailableReason !== undefined)('trace context through the job queue', () => {
  let cluster: PgCluster;
  let url: string;
  let server: ScriptedServer;
  let receiver: OtlpReceiver;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    assertBuilt();
    cluster = await startPgCluster();
    url = await cluster.createDatabase('traces');
    receiver = await startOtlpReceiver();
    server = await startScriptedServer({
      script: [
        { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_n', name: 'Read', input: { file_path: 'note.txt' } }] },
        { kind: 'message', blocks: [{ type: 'text', text: 'Read it.' }] },
      ],
    });
  });
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await server?.close();
    await receiver?.close();
    await cluster?.stop();
    removeSandboxes();
  });

  test("the worker's run span is a child of the submitter's submit_job span, in the submitter's trace", async () => {
    const telemetry = { CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint };
    const submitter = makeSandbox();
    const submitted = await runCli(['submit', '--queue', url, '--output-format', 'json', 'read the note'], {
      ...submitter,
      env: { ...telemetry, OTEL_SERVICE_NAME: 'submitter' },
    });
    expect(submitted.stderr).toBe('');
    expect(submitted.code).toBe(0);
    const jobId = submitted.stdout.trim();

    worker = spawnWorker({ url, modelBaseURL: server.baseURL, concurrency: 1, leaseSeconds: 30, env: { ...telemetry, OTEL_SERVICE_NAME: 'worker' } }).child;
    const result = await runCli(['result', '--queue', url, '--wait', jobId], submitter);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ subtype: 'success', result: 'Read it.' });

    // The worker exports when the run closes, right after it stored the result.
    const spans = await eventually(() => {
      const all = receiver.spans();
      return all.some((s) => s.name === 'invoke_agent rxagent') && all.some((s) => s.name === 'execute_tool Read') ? all : undefined;
    }, { timeoutMs: 60_000, everyMs: 50, what: "the worker's spans at the receiver" });
    const [submit] = spans.filter((s) => s.name === 'submit_job rxagent');
    const [run] = spans.filter((s) => s.name === 'invoke_agent rxagent');
    expect(submit).toMatchObject({ service: 'submitter' });
    expect(run).toMatchObject({ service: 'worker', traceId: submit!.traceId, parentSpanId: submit!.spanId });
    expect(attr(run!.attributes, 'gen_ai.conversation.id')).toBe(attr(submit!.attributes, 'gen_ai.conversation.id'));
    // Every span the worker recorded for this run is in the same trace.
    const workerSpans = spans.filter((s) => s.service === 'worker');
    expect(workerSpans.map((s) => s.name)).toEqual(expect.arrayContaining(['rxagent.iteration', 'execute_tool Read']));
    expect(workerSpans.every((s) => s.traceId === submit!.traceId)).toBe(true);
  });
});
