/**
 * `/compact [instructions]` sent from the page (or the API) as a prompt: the conversation so far
 * is compacted now, as the terminal view's /compact does (`compactRun`: PreCompact hooks, one
 * summary request, a manual boundary in the transcript, the run's history replaced), instead of
 * going to the model as text. It is a turn of its own for the page: a compaction boundary, then
 * a terminal whose answer says what happened. Stop (or the server stopping) cancels it and the
 * conversation stays as it was. A prompt typed while it runs waits for the next turn.
 */
import { randomUUID } from 'node:crypto';
import { Observable } from 'rxjs';
import type { PreparedRun } from '../cli/buildRun.js';
import { CompactCancelled, compactRun } from '../cli/interactive/compactNow.js';
import { localTerminal } from '../cli/streamInput/localCommands.js';
import type { AgentRun } from '../loop/runHandle.js';
import type { LoopEvent, TerminalReason } from '../loop/types.js';

export function compactTurn(run: PreparedRun, command: string, instructions: string, signal: AbortSignal): AgentRun {
  const events$ = new Observable<LoopEvent>((subscriber) => {
    // The command as the person typed it, for the page to show (it never enters the history).
    subscriber.next({ type: 'user_message', message: { role: 'user', content: command }, uuid: randomUUID(), reason: 'prompt', isMeta: false, chainId: run.sessionId, depth: 0 });
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal.addEventListener('abort', stop, { once: true });
    const startedAt = Date.now();
    const end = (reason: TerminalReason, text: string, failed = false) => {
      subscriber.next(localTerminal(run, startedAt, { reason, text, failed }));
      subscriber.complete();
    };
    compactRun(run, instructions, { signal: controller.signal, chainId: run.sessionId }).then(
      (result) => {
        if (!result) return end('turn_setup_failed', '/compact: this run has no model client or transcript to compact with', true);
        if (result.type === 'too_short') return end('completed', 'Nothing to compact yet: the conversation is a single exchange.');
        subscriber.next({ type: 'compact_boundary', trigger: 'manual', preTokens: result.preTokens, postTokens: result.postTokens, chainId: run.sessionId, depth: 0 });
        end('completed', `Compacted: about ${result.preTokens} -> ${result.postTokens} tokens.`);
      },
      (error: unknown) =>
        error instanceof CompactCancelled ? end('aborted_streaming', error.message) : end('model_error', `Compaction failed: ${(error as Error).message}. The conversation is unchanged.`, true),
    );
    return () => {
      signal.removeEventListener('abort', stop);
      controller.abort();
    };
  });
  // Nothing joins a compaction: a prompt sent meanwhile is refused here and starts the next turn.
  return { events$, submit: () => ({ id: 'compact', accepted: false }) };
}
