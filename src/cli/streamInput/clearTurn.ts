/**
 * `/clear` (or `/reset`, `/new`) sent as a stream-json user message: a new, empty conversation,
 * as Claude Code does it. The session so far ends (SessionEnd hooks, reason `clear`) and stays in
 * its transcript, resumable; a fresh session with a new id starts (SessionStart hooks, source
 * `clear`) with the settings the host changed during the process (model, permission mode,
 * thinking budget, "always allow" rules) carried over by the caller. Nothing is sent to the model.
 *
 * Printed as a turn: a `conversation_reset` line (the cleared session's id, the new one as
 * `new_conversation_id`, the host's uuid of the message), then the new session's `system/init`
 * and a `result` (success, empty text). When the fresh session cannot be built, the old one is
 * opened again, and the result is an error saying why.
 */
import { randomUUID } from 'node:crypto';
import { describeRun, type PreparedRun } from '../buildRun.js';
import { createStreamJsonMapper, initLine } from '../output/streamJson.js';
import type { OutputLine } from '../outputSchemas.js';
import { localTerminal } from './localCommands.js';
import type { RunningTurn } from './runTurn.js';

export interface ClearTurnOptions {
  readonly run: PreparedRun;
  /** Builds the run of a fresh session (a new id). */
  readonly fresh: () => Promise<PreparedRun>;
  /** Builds the run of the cleared session again (when the fresh one could not be built). */
  readonly reopen: () => Promise<PreparedRun>;
  /** Told the run the session goes on with. */
  readonly onRun: (run: PreparedRun) => void;
  readonly emit: (line: OutputLine) => void;
  /** The host's uuid of the `/clear` message. */
  readonly userMessageUuid: string | undefined;
}

export function startClearTurn(options: ClearTurnOptions): RunningTurn {
  const { run: cleared, emit } = options;
  const startedAt = Date.now();
  let mapper = createStreamJsonMapper(describeRun(cleared), { includePartialMessages: false, newUuid: randomUUID, now: Date.now });
  const finish = (run: PreparedRun, text: string, failed: boolean): 0 | 1 => {
    mapper = createStreamJsonMapper(describeRun(run), { includePartialMessages: false, newUuid: randomUUID, now: Date.now });
    emit(initLine(describeRun(run), randomUUID()));
    const line = mapper.result(localTerminal(run, startedAt, { reason: failed ? 'turn_setup_failed' : 'completed', text, failed }));
    emit(line);
    return line.is_error ? 1 : 0;
  };

  const done = (async (): Promise<0 | 1> => {
    await cleared.close('clear');
    let next: PreparedRun;
    try {
      next = await options.fresh();
    } catch (error) {
      const why = `/clear failed: ${(error as Error).message}.`;
      try {
        const reopened = await options.reopen();
        options.onRun(reopened);
        return finish(reopened, `${why} The conversation is unchanged.`, true);
      } catch (reopenError) {
        // Nothing to go on with: later turns end in errors of their own, each with its result.
        return finish(cleared, `${why} The session could not be opened again either: ${(reopenError as Error).message}.`, true);
      }
    }
    options.onRun(next);
    emit({
      type: 'conversation_reset',
      session_id: cleared.sessionId,
      uuid: randomUUID(),
      new_conversation_id: next.sessionId,
      trigger: 'clear',
      ...(options.userMessageUuid === undefined ? {} : { user_message_uuid: options.userMessageUuid }),
      timestamp: new Date().toISOString(),
    });
    return finish(next, '', false);
  })();

  // Nothing to interrupt: the switch is quick and leaving it halfway would leave no session.
  return { submit: () => false, interrupt: () => undefined, get mapper() { return mapper; }, done };
}

/**
 * `-p "/clear"`: a print-mode run ends after its one prompt, so there is no conversation to go
 * on with and nothing is changed (a resumed session stays as it was); `system/init` and an empty
 * success, with no request to the model.
 */
export function startNothingToClearTurn(run: PreparedRun, emit: (line: OutputLine) => void): RunningTurn {
  const startedAt = Date.now();
  const mapper = createStreamJsonMapper(describeRun(run), { includePartialMessages: false, newUuid: randomUUID, now: Date.now });
  emit(initLine(describeRun(run), randomUUID()));
  emit(mapper.result(localTerminal(run, startedAt, { reason: 'completed', text: '' })));
  return { submit: () => false, interrupt: () => undefined, mapper, done: Promise.resolve(0) };
}
