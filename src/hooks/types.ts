/**
 * Hook configuration and the JSON exchanged with hooks. Field names are snake_case because
 * they are what command hooks read on stdin and write on stdout (the shape Claude Code users
 * already write); in-process `HookCallback`s receive and return the same objects.
 */

export type HookEvent =
  | 'PreToolUse'
  | 'PostToolUse'
  | 'PostToolBatch'
  | 'Stop'
  | 'UserPromptSubmit'
  | 'SessionStart'
  | 'SessionEnd'
  | 'Notification'
  | 'PermissionRequest'
  | 'PreCompact'
  | 'SubagentStart'
  | 'SubagentStop';

/** Every hook event rxagent runs, as a runtime list (settings keys outside it are warned about). */
export const HOOK_EVENTS: readonly HookEvent[] = [
  'PreToolUse',
  'PostToolUse',
  'PostToolBatch',
  'Stop',
  'UserPromptSubmit',
  'SessionStart',
  'SessionEnd',
  'Notification',
  'PermissionRequest',
  'PreCompact',
  'SubagentStart',
  'SubagentStop',
];

/** Fields every hook input carries. */
export interface HookInputBase {
  readonly session_id: string;
  readonly transcript_path: string | undefined;
  readonly cwd: string;
  readonly permission_mode?: string | undefined;
  readonly hook_event_name: HookEvent;
}

/** The JSON a hook receives (a command hook on stdin), one shape per event. */
export type HookInput =
  | (HookInputBase & {
      readonly hook_event_name: 'PreToolUse';
      readonly tool_name: string;
      readonly tool_input: unknown;
      readonly tool_use_id: string;
    })
  | (HookInputBase & {
      readonly hook_event_name: 'PostToolUse';
      readonly tool_name: string;
      readonly tool_input: unknown;
      readonly tool_use_id: string;
      /** The tool's output (what `call` produced). */
      readonly tool_response: unknown;
      /** Whether the result is an error result. */
      readonly is_error: boolean;
    })
  | (HookInputBase & {
      readonly hook_event_name: 'PostToolBatch';
      readonly tool_calls: ReadonlyArray<{
        readonly tool_name: string;
        readonly tool_input: unknown;
        readonly tool_use_id: string;
        readonly tool_response: unknown;
        readonly is_error: boolean;
      }>;
    })
  | (HookInputBase & {
      readonly hook_event_name: 'Stop';
      readonly stop_hook_active: boolean;
      /** The text of the final assistant message. */
      readonly last_assistant_message: string;
    })
  | (HookInputBase & { readonly hook_event_name: 'UserPromptSubmit'; readonly prompt: string })
  | (HookInputBase & { readonly hook_event_name: 'SessionStart'; readonly source: 'startup' | 'resume' | 'clear' | 'compact'; readonly model: string })
  | (HookInputBase & { readonly hook_event_name: 'SessionEnd'; readonly reason: 'clear' | 'logout' | 'prompt_input_exit' | 'other' })
  | (HookInputBase & { readonly hook_event_name: 'Notification'; readonly message: string; readonly notification_type: string })
  | (HookInputBase & {
      readonly hook_event_name: 'PermissionRequest';
      readonly tool_name: string;
      readonly tool_input: unknown;
      readonly tool_use_id: string;
    })
  | (HookInputBase & {
      readonly hook_event_name: 'PreCompact';
      readonly trigger: 'manual' | 'auto';
      readonly custom_instructions: string | null;
    })
  | (HookInputBase & { readonly hook_event_name: 'SubagentStart'; readonly agent_id: string; readonly agent_type: string })
  | (HookInputBase & {
      readonly hook_event_name: 'SubagentStop';
      readonly stop_hook_active: boolean;
      readonly agent_id: string;
      readonly agent_type: string;
      readonly agent_transcript_path: string;
      /** The text of the subagent's final assistant message. */
      readonly last_assistant_message: string;
    });

/** What a hook may answer (JSON on stdout after exit 0, or a callback's return value). */
export interface HookJSONOutput {
  /** `false` stops the loop (controlled terminal) with `stopReason`. */
  readonly continue?: boolean;
  readonly stopReason?: string;
  /** `block`: refuse (PreToolUse), flag the result (PostToolUse), continue with feedback (Stop), stop (PostToolBatch), reject the prompt (UserPromptSubmit). `approve` is an old spelling of permissionDecision 'allow'. */
  readonly decision?: 'block' | 'approve';
  readonly reason?: string;
  /** Shown to the user as a warning. */
  readonly systemMessage?: string;
  readonly suppressOutput?: boolean;
  readonly hookSpecificOutput?: {
    readonly hookEventName?: string;
    /** PreToolUse. 'defer': postpone the call (non-interactive runs, a response's only call; else ignored with a warning). */
    readonly permissionDecision?: 'allow' | 'deny' | 'ask' | 'defer';
    readonly permissionDecisionReason?: string;
    readonly updatedInput?: Record<string, unknown>;
    /** PostToolUse: replaces the tool output (checked against the tool's output schema). */
    readonly updatedOutput?: unknown;
    readonly additionalContext?: string;
    /** PermissionRequest: answer the permission question instead of the user. */
    readonly decision?: {
      readonly behavior?: 'allow' | 'deny';
      readonly updatedInput?: Record<string, unknown>;
      readonly message?: string;
    };
  };
}

/**
 * An in-process hook with the same semantics as a command hook: return (or resolve) the JSON a
 * command would print; `{ decision: 'block', reason }` plays the part of exit code 2. A callback
 * that throws is a non-blocking error, reported as a warning.
 */
export type HookCallback = (
  input: HookInput,
  ctx: { readonly signal: AbortSignal },
) => HookJSONOutput | undefined | void | Promise<HookJSONOutput | undefined | void>;

/** A shell command run per event: the input JSON on stdin, its answer read from exit code and stdout. */
export interface CommandHookSpec {
  readonly type: 'command';
  readonly command: string;
  /** Seconds (default 60). */
  readonly timeout?: number;
}

/** An in-process hook: a function given the same input and answering the same JSON as a command hook. */
export interface CallbackHookSpec {
  readonly type: 'callback';
  readonly callback: HookCallback;
  /** Seconds (default 60). */
  readonly timeout?: number;
  /** A name for warnings. */
  readonly name?: string;
}

/** One hook of a matcher group: a command or an in-process callback. */
export type HookSpec = CommandHookSpec | CallbackHookSpec;

/** Hooks that run for the calls their `matcher` selects (all of them for non-tool events). */
export interface HookMatcherGroup {
  /** Tool name, `A|B`, a regular expression, or `*` / empty for every tool (tool events only). */
  readonly matcher?: string;
  readonly hooks: readonly HookSpec[];
}

/** The hooks of each event, as in the `hooks` key of a settings file. */
export type HooksConfig = { readonly [E in HookEvent]?: readonly HookMatcherGroup[] };
