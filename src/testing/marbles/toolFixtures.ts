/**
 * Tools for marble tests, timed in frames: run inside `TestScheduler.run`, their timers are
 * virtual. Each accepts any input object; `name` defaults to the fixture's kind, `safe`
 * (`isConcurrencySafe`) to true, `interrupt` to 'cancel'.
 *
 * @example
 * ```ts
 * const tools = [waitTool(5), progressTool(3, { name: 'count' }), neverTool(), throwingTool('disk full')];
 * ```
 */
import { map, NEVER, range, timer, concat, of, concatMap } from 'rxjs';
import { z } from 'zod';
import { defineTool } from '../../tools/defineTool.js';
import type { InterruptBehavior, Tool } from '../../tools/types.js';

/** Options every fixture takes. */
export interface FixtureOptions {
  readonly name?: string;
  /** `isConcurrencySafe` (default true: runs alongside other safe calls). */
  readonly safe?: boolean;
  /** What a user interrupt does to a running call (default 'cancel'). */
  readonly interrupt?: InterruptBehavior;
}

const anyInput = z.looseObject({});

function fixture(kind: string, options: FixtureOptions, description: string, call: Tool<Record<string, unknown>, string>['call']): Tool {
  return defineTool({
    name: options.name ?? kind,
    description,
    inputSchema: anyInput,
    isConcurrencySafe: options.safe ?? true,
    interruptBehavior: options.interrupt ?? 'cancel',
    call,
  }) as Tool;
}

/** Answers `waited <frames>` (or `output`) `frames` frames after it starts. */
export function waitTool(frames: number, options: FixtureOptions & { readonly output?: string } = {}): Tool {
  const output = options.output ?? `waited ${frames}`;
  return fixture('wait', options, `Waits ${frames} frames.`, () => timer(frames).pipe(map(() => ({ type: 'outcome' as const, output }))));
}

/** Reports progress 1, 2, ... `frames` (one a frame, the first one frame after it starts), then answers `counted <frames>`. */
export function progressTool(frames: number, options: FixtureOptions = {}): Tool {
  return fixture('progress', options, `Counts to ${frames}, one a frame.`, () =>
    concat(
      range(1, frames).pipe(concatMap((n) => timer(1).pipe(map(() => ({ type: 'progress' as const, data: n }))))),
      of({ type: 'outcome' as const, output: `counted ${frames}` }),
    ),
  );
}

/** Never answers: only an interrupt, an abort or an unsubscribe ends it. */
export function neverTool(options: FixtureOptions = {}): Tool {
  return fixture('never', options, 'Never finishes.', () => NEVER);
}

/** Throws `message` when called (the model gets an error result). */
export function throwingTool(message: string, options: FixtureOptions = {}): Tool {
  return fixture('throws', options, 'Always fails.', () => {
    throw new Error(message);
  });
}
