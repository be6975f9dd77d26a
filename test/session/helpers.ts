/** Record builders and temp-dir helpers shared by the session tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ContentBlock, MessageParam, TextBlock, ToolResultBlock, ToolUseBlock } from '../../src/protocol/content.js';
import type { SessionRecord } from '../../src/session/records.js';
import { afterEach, beforeEach } from 'vitest';
import { createJsonlSessionStore, type JsonlSessionStore } from '../../src/session/jsonlSessionStore.js';

export async function makeTempDir(prefix = 'rxagent-session-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * For a test file's top level: before each test a fresh temp dir holding a JSONL store for the
 * workspace '/work/project' (handed to `ready`), removed after the test.
 */
export function useTempStore(ready: (dir: string, store: JsonlSessionStore) => void): void {
  let cleanup: (() => Promise<void>) | undefined;
  beforeEach(async () => {
    const temp = await makeTempDir();
    cleanup = temp.cleanup;
    ready(temp.dir, createJsonlSessionStore({ dir: temp.dir, workspace: '/work/project' }));
  });
  afterEach(async () => cleanup?.());
}

/** Builds a linear chain of records for one session, the way the sink would. */
export class ChainBuilder {
  readonly records: SessionRecord[] = [];
  private clock = Date.parse('2026-01-01T00:00:00.000Z');

  constructor(
    readonly sessionId: string,
    private readonly cwd = '/work/project',
  ) {}

  private base() {
    const last = this.records[this.records.length - 1];
    this.clock += 1000;
    return {
      uuid: randomUUID(),
      parentUuid: last ? last.uuid : null,
      sessionId: this.sessionId,
      timestamp: new Date(this.clock).toISOString(),
      cwd: this.cwd,
      version: 'test',
    };
  }

  user(content: string | ContentBlock[]): SessionRecord {
    const record: SessionRecord = { ...this.base(), type: 'user', message: { role: 'user', content } };
    this.records.push(record);
    return record;
  }

  assistant(content: string | ContentBlock[]): SessionRecord {
    const record: SessionRecord = {
      ...this.base(),
      type: 'assistant',
      message: { role: 'assistant', content },
      messageId: `msg_${this.records.length}`,
      model: 'test-model',
      stopReason: Array.isArray(content) && content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    };
    this.records.push(record);
    return record;
  }

  boundary(summary: MessageParam[], preTokens = 1000): SessionRecord[] {
    const out: SessionRecord[] = [{ ...this.base(), type: 'compact_boundary', trigger: 'manual', preTokens, postTokens: 100 }];
    this.records.push(out[0]!);
    for (const message of summary) {
      const record: SessionRecord = { ...this.base(), type: 'summary', message };
      this.records.push(record);
      out.push(record);
    }
    return out;
  }

  tombstone(uuids: string[]): SessionRecord {
    const record: SessionRecord = { ...this.base(), type: 'tombstone', uuids };
    this.records.push(record);
    return record;
  }

  system(subtype: string, data?: unknown): SessionRecord {
    const record: SessionRecord = { ...this.base(), type: 'system', subtype, data };
    this.records.push(record);
    return record;
  }
}

export const toolUse = (id: string, name = 'Read', input: Record<string, unknown> = { path: 'a.txt' }): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});
export const toolResult = (id: string, content = 'ok'): ToolResultBlock => ({ type: 'tool_result', tool_use_id: id, content });
export const text = (value: string): TextBlock => ({ type: 'text', text: value });

/** A minimal request body around a message view, for `validateMessagesRequest`. */
export function requestWith(messages: readonly MessageParam[]): unknown {
  return { model: 'test-model', max_tokens: 1024, messages };
}
