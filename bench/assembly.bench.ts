/**
 * Assembly benchmarks (issue 20 §1): the client-side path from SSE bytes to the final message.
 *
 * - `assembly.<profile>.time_ratio_to_parse_baseline` (and `cpu_…`): decodeSSE + assembleBlocks
 *   from an array of network chunks to the complete message, vs the parse baseline on the same
 *   chunks (eventsource-parser + one JSON.parse per event + string concatenation), one process.
 * - `assembly.<profile>.speedup_vs_anthropic_sdk` (and `cpu_…`): each client through its own
 *   transport over loopback HTTP (ours: createMessagesClient + assembleBlocks; theirs:
 *   `messages.stream().finalMessage()` of @anthropic-ai/sdk), the bytes served by a server in
 *   another process. The figure is the SDK's time over ours.
 *
 * Profiles (bench/sseFixtures.ts): `mixed` (~1 MiB coding turn), `big` (~2 MiB long answer),
 * `tool200k` (one 200 KiB tool input). Every path must build the same message before any is timed.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createParser } from 'eventsource-parser';
import { from, last, lastValueFrom } from 'rxjs';
import { assembleBlocks } from '../operators/assembleBlocks.js';
import { decodeSSE } from '../operators/decodeSSE.js';
import type { AssistantMessage } from '../src/protocol/content.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import { createMessagesClient } from '../src/transport/createMessagesClient.js';
import { startByteServer, type ByteServer } from './byteServerProcess.js';
import { spreadFigure, type BenchModule, type Figures } from './figures.js';
import { measureInterleaved, pairedRatio } from './harness.js';
import { bigFixture, mixedFixture, tool200kFixture, toolFixture, type SseFixture } from './sseFixtures.js';

const REQUEST: MessagesRequest = { model: 'claude-bench-scripted', max_tokens: 64_000, messages: [{ role: 'user', content: 'go' }] };
const ROUNDS = 11;

/** Ours, synchronous from an array of chunks (like the baseline). */
function oursSync(chunks: readonly Uint8Array[]): AssistantMessage {
  let message: AssistantMessage | undefined;
  from(chunks)
    .pipe(decodeSSE(), assembleBlocks(), last((o) => o.type === 'message'))
    .subscribe((o) => {
      if (o.type === 'message') message = o.message;
    });
  if (message === undefined) throw new Error('no message assembled');
  return message;
}

/** The floor: SSE parsing, one JSON.parse per event, and string concatenation. */
function parseBaseline(chunks: readonly Uint8Array[]): string[] {
  const decoder = new TextDecoder();
  const texts: string[] = [];
  const parser = createParser({
    onEvent(event) {
      const value = JSON.parse(event.data) as { type: string; index?: number; delta?: Record<string, string> };
      if (value.type === 'content_block_delta' && value.index !== undefined && value.delta) {
        const d = value.delta;
        texts[value.index] = (texts[value.index] ?? '') + (d.text ?? d.thinking ?? d.partial_json ?? d.signature ?? '');
      }
    },
  });
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  parser.feed(decoder.decode());
  return texts;
}

/** Our client over HTTP, to the complete message. */
function oursHttp(client: ReturnType<typeof createMessagesClient>): () => Promise<AssistantMessage> {
  return async () => {
    const output = await lastValueFrom(client.stream(REQUEST).pipe(assembleBlocks(), last((o) => o.type === 'message')));
    if (output.type !== 'message') throw new Error('no message assembled');
    return output.message;
  };
}

/** The SDK over HTTP; with `inputListener`, as a UI showing tool-call progress (it then re-parses the partial input per delta). */
function sdkHttp(client: Anthropic, inputListener = false): () => Promise<unknown> {
  return () => {
    const stream = client.messages.stream({ model: REQUEST.model, max_tokens: REQUEST.max_tokens, messages: [{ role: 'user', content: 'go' }] });
    if (inputListener) stream.on('inputJson', () => {});
    return stream.finalMessage();
  };
}

const sdkClient = (baseURL: string) => new Anthropic({ baseURL, apiKey: 'bench-not-a-key', maxRetries: 0 });

async function profileCase(f: SseFixture, server: ByteServer): Promise<Figures> {
  const ours = createMessagesClient({ baseURL: server.baseURL(f.label), apiKey: 'bench-not-a-key', maxRetries: 0 });
  const sdk = sdkClient(server.baseURL(f.label));
  try {
    // The paths must agree before their times mean anything.
    const sync = JSON.stringify(oursSync(f.chunks).content);
    if (JSON.stringify((await oursHttp(ours)()).content) !== sync) throw new Error(`${f.label}: our HTTP path differs from the sync path`);
    if (JSON.stringify(((await sdkHttp(sdk)()) as { content: unknown }).content) !== sync) throw new Error(`${f.label}: our message differs from the SDK's`);
    const m = await measureInterleaved(
      {
        baseline: () => parseBaseline(f.chunks),
        ours: () => oursSync(f.chunks),
        oursHttp: oursHttp(ours),
        sdkHttp: sdkHttp(sdk),
      },
      { warmup: 3, rounds: ROUNDS },
    );
    const p = `assembly.${f.label}`;
    return {
      [`${p}.time_ratio_to_parse_baseline`]: spreadFigure(pairedRatio(m.ours, m.baseline, 'wall'), ROUNDS, 'ratio', '<= 1.0'),
      [`${p}.cpu_time_ratio_to_parse_baseline`]: spreadFigure(pairedRatio(m.ours, m.baseline, 'cpu'), ROUNDS, 'ratio', '<= 1.0'),
      [`${p}.speedup_vs_anthropic_sdk`]: spreadFigure(pairedRatio(m.sdkHttp, m.oursHttp, 'wall'), ROUNDS, 'x', '>= 3.5'),
      [`${p}.cpu_speedup_vs_anthropic_sdk`]: spreadFigure(pairedRatio(m.sdkHttp, m.oursHttp, 'cpu'), ROUNDS, 'x'),
      [`${p}.ours_ms`]: spreadFigure(m.ours.wall, ROUNDS, 'ms'),
      [`${p}.ours_http_ms`]: spreadFigure(m.oursHttp.wall, ROUNDS, 'ms'),
      [`${p}.parse_baseline_ms`]: spreadFigure(m.baseline.wall, ROUNDS, 'ms'),
      [`${p}.anthropic_sdk_http_ms`]: spreadFigure(m.sdkHttp.wall, ROUNDS, 'ms'),
      [`${p}.input_bytes`]: { value: f.bytes.length, unit: 'bytes' },
      [`${p}.chunks`]: { value: f.chunks.length, unit: 'count' },
    };
  } finally {
    await ours.close();
  }
}

/**
 * The SDK with an `inputJson` listener re-parses the whole partial input on every delta, which is
 * quadratic: 200 KiB takes seconds per run, so this case uses 64 KiB (and no target).
 */
async function progressCase(f: SseFixture, server: ByteServer): Promise<Figures> {
  const ours = createMessagesClient({ baseURL: server.baseURL(f.label), apiKey: 'bench-not-a-key', maxRetries: 0 });
  const sdk = sdkClient(server.baseURL(f.label));
  try {
    const rounds = 9;
    const m = await measureInterleaved({ oursHttp: oursHttp(ours), sdkHttp: sdkHttp(sdk, true) }, { warmup: 1, rounds });
    return {
      'assembly.tool64k_progress.speedup_vs_anthropic_sdk_input_listener': spreadFigure(pairedRatio(m.sdkHttp, m.oursHttp, 'wall'), rounds, 'x'),
      'assembly.tool64k_progress.anthropic_sdk_input_listener_ms': spreadFigure(m.sdkHttp.wall, rounds, 'ms'),
    };
  } finally {
    await ours.close();
  }
}

export const assemblyBench: BenchModule = {
  name: 'assembly',
  async run() {
    const profiles = [mixedFixture(), bigFixture(), tool200kFixture()];
    const progress = toolFixture(64, 3);
    const server = await startByteServer([...profiles, progress]);
    try {
      const figures: Figures = {};
      for (const f of profiles) Object.assign(figures, await profileCase(f, server));
      return { ...figures, ...(await progressCase(progress, server)) };
    } finally {
      await server.close();
    }
  },
};
