/**
 * `--debug` / `--debug-file <file>`: a diagnostics log of the run, one timestamped line per
 * thing worth knowing when a run misbehaves: warnings, every hook run and how it ended, and the
 * loop's events in short (each model request, retry, tool call and result, transition, the
 * terminal). On stderr, or appended to the file (its directory is created). Claude Code's
 * `--debug=<categories>` filter is accepted; rxagent's log has no categories.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { HookLifecycleEvent } from '../hooks/hookLifecycle.js';
import type { LoopEvent } from '../loop/types.js';
import { subagentEventOf } from '../agents/events.js';
import { assertNever } from '../util/assertNever.js';

export interface DebugLog {
  write(message: string): void;
  loopEvent(event: LoopEvent): void;
  hookEvent(event: HookLifecycleEvent): void;
}

export function openDebugLog(
  options: { readonly debug: boolean; readonly debugFile: string | undefined },
  writeErr: (text: string) => void,
  cwd: string,
  now: () => Date = () => new Date(),
): DebugLog | undefined {
  if (!options.debug) return undefined;
  const file = options.debugFile === undefined ? undefined : resolve(cwd, options.debugFile);
  let failed = false;
  const write = (message: string) => {
    const line = `${now().toISOString()} [DEBUG] ${message}\n`;
    if (file === undefined) return writeErr(line);
    if (failed) return;
    try {
      mkdirSync(dirname(file), { recursive: true });
      appendFileSync(file, line);
    } catch (error) {
      failed = true;
      writeErr(`rxagent: warning: --debug-file ${file}: ${(error as Error).message}; no more debug lines are written\n`);
    }
  };
  return {
    write,
    loopEvent: (event) => {
      const text = describeLoopEvent(event);
      if (text !== undefined) write(text);
    },
    hookEvent: (event) =>
      write(
        event.phase === 'started'
          ? `hook ${event.hookName} started (${event.hookId})`
          : `hook ${event.hookName} ${event.outcome}${event.exitCode === undefined ? '' : ` exit ${event.exitCode}`} (${event.hookId})${event.stderr ? `: ${event.stderr.trim().slice(0, 500)}` : ''}`,
      ),
  };
}

/** One short line per loop event worth logging; undefined for the chatty ones (deltas, progress). */
export function describeLoopEvent(event: LoopEvent, prefix = ''): string | undefined {
  const child = subagentEventOf(event);
  if (child) return describeLoopEvent(child.event, `${prefix}[${child.agentType} ${child.agentId}] `);
  switch (event.type) {
    case 'iteration_start':
      return `${prefix}iteration ${event.turnCount}: request to ${event.model}${event.transition ? ` (${event.transition})` : ''}`;
    case 'model':
      if (event.event.type === 'debug') return `${prefix}stream: ${event.event.message}`;
      if (event.event.type === 'message_start') return `${prefix}response ${event.event.id} started (${event.event.model})`;
      return undefined;
    case 'api_retry':
    case 'stream_retry': {
      const r = event.retry;
      return `${prefix}${event.type} ${r.attempt}/${r.maxRetries} in ${r.delayMs} ms: ${r.status ?? ''} ${r.errorType}: ${r.message}`;
    }
    case 'assistant_message':
      return `${prefix}response ${event.message.id} complete: stop_reason ${event.message.stop_reason}, ${event.message.usage.input_tokens ?? 0} in / ${event.message.usage.output_tokens} out tokens`;
    case 'tool_start':
      return `${prefix}tool ${event.name} ${event.toolUseId} started`;
    case 'tool_result':
      return `${prefix}tool ${event.name} ${event.toolUseId} ${event.result.is_error ? 'failed' : 'done'} in ${event.durationMs} ms`;
    case 'warning':
      return `${prefix}warning: ${event.message}`;
    case 'compact_boundary':
      return `${prefix}compacted (${event.trigger}): ${event.preTokens} -> ${event.postTokens} tokens`;
    case 'transition':
      return `${prefix}transition: ${event.reason}`;
    case 'terminal':
      return `${prefix}terminal: ${event.reason}${event.error ? ` (${event.error.kind}: ${event.error.message})` : ''}, ${event.turnCount} turns, $${event.costUsd.toFixed(6)}`;
    case 'tool_progress':
    case 'user_message':
    case 'tombstone':
    case 'command_lifecycle':
      return undefined;
    default:
      return assertNever(event);
  }
}
