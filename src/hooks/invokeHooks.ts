/**
 * What every hook event shares: the configured groups compiled once, the hooks matching one
 * event (and tool), the fields every input carries, and running them all in parallel with the
 * session's options. The tool/loop runners and the session runners are both built on it.
 */
import { randomUUID } from 'node:crypto';
import type { CommandSandbox } from '../sandbox/types.js';
import { hookNameOf, type HookLifecycleEvent } from './hookLifecycle.js';
import type { HookOutcome } from './interpretHookOutput.js';
import { compileToolMatcher } from './matcher.js';
import { runHook } from './runHook.js';
import type { HookEvent, HookInput, HookInputBase, HookSpec, HooksConfig } from './types.js';

/** Options of {@link createHookRunners}: the hooks configuration and the session facts hooks receive. */
export interface HookRunnerOptions {
  readonly hooks: HooksConfig;
  /** The workspace: command hooks run there and receive it as `cwd`. */
  readonly cwd: string;
  readonly sessionId: string;
  readonly transcriptPath?: string;
  readonly permissionMode?: string;
  /** Warnings of PreToolUse/PostToolUse hooks (their seam has no warnings channel). */
  readonly onWarning?: (message: string) => void;
  /** SIGTERM → SIGKILL grace for command hooks. */
  readonly killGraceMs?: number;
  /** The run's sandbox for command hooks (see `RunHookOptions.sandbox`). */
  readonly sandbox?: CommandSandbox;
  /** Command hooks' environment (default: this process's, without rxagent's credentials). */
  readonly env?: NodeJS.ProcessEnv;
  /** Told when each hook starts and how it ended (`--include-hook-events`, `--debug`). */
  readonly onHookEvent?: (event: HookLifecycleEvent) => void;
}

export interface HookInvoker {
  /** The hooks of `event` whose matcher selects `toolName` (every group's for non-tool events). */
  specsFor(event: HookEvent, toolName?: string): HookSpec[];
  base(event: HookEvent): HookInputBase;
  runAll(specs: readonly HookSpec[], input: HookInput, signal?: AbortSignal): Promise<HookOutcome[]>;
  /** Passes the outcomes' warnings to `onWarning`. */
  report(outcomes: readonly HookOutcome[]): void;
}

export function createHookInvoker(options: HookRunnerOptions): HookInvoker {
  const compiled = Object.fromEntries(
    Object.entries(options.hooks).map(([event, groups]) => [
      event,
      (groups ?? []).map((g) => ({ matches: compileToolMatcher(g.matcher), hooks: g.hooks })),
    ]),
  ) as { [E in HookEvent]?: Array<{ matches: (tool: string) => boolean; hooks: readonly HookSpec[] }> };

  return {
    specsFor: (event, toolName) =>
      (compiled[event] ?? []).filter((g) => toolName === undefined || g.matches(toolName)).flatMap((g) => g.hooks),
    base: (event) => ({
      session_id: options.sessionId,
      transcript_path: options.transcriptPath,
      cwd: options.cwd,
      ...(options.permissionMode === undefined ? {} : { permission_mode: options.permissionMode }),
      hook_event_name: event,
    }),
    runAll: (specs, input, signal) =>
      Promise.all(
        specs.map((spec) => {
          const observe = options.onHookEvent;
          const identity = { hookId: randomUUID(), hookName: hookNameOf(input), hookEvent: input.hook_event_name, sessionId: options.sessionId };
          observe?.({ ...identity, phase: 'started' });
          return runHook(spec, input, {
            cwd: options.cwd,
            ...(signal === undefined ? {} : { signal }),
            ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
            ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
            ...(options.env === undefined ? {} : { env: options.env }),
            ...(options.permissionMode === undefined ? {} : { permissionMode: options.permissionMode }),
            ...(observe ? { onFinished: (report) => observe({ ...identity, phase: 'response', ...report }) } : {}),
          });
        }),
      ),
    report: (outcomes) => {
      for (const o of outcomes) for (const w of o.warnings) options.onWarning?.(w);
    },
  };
}
