/**
 * Command-line parsing for `rxagent`. Option names and meanings follow Claude Code's print mode
 * wherever one exists, so scripts written for it (and the Claude Agent SDK, which starts its CLI
 * with these flags) can point at rxagent unchanged.
 *
 * node's `parseArgs` does the parsing; `expandVariadic` first rewrites Claude Code's variadic
 * list flags (`--allowedTools Read Edit`, `--add-dir d1 d2`) into one `--flag=word` per word,
 * because Claude Code's parser takes every word up to the next flag there.
 */
import { parseArgs } from 'node:util';
import { PERMISSION_MODES, type PermissionMode } from '../permissions/modeNames.js';
import { splitToolList as splitRuleList } from '../permissions/rules.js';
import { DEFAULT_MODEL, IGNORED_FLAGS, OPTION_CONFIG, VARIADIC_FLAGS } from './argsSpec.js';

export { DEFAULT_MODEL, HELP_TEXT } from './argsSpec.js';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const INPUT_FORMATS = ['text', 'stream-json'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];
/** Where settings come from (`--setting-sources`), as Claude Code names them. */
export const SETTING_SOURCES = ['user', 'project', 'local'] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];
export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export const THINKING_MODES = ['enabled', 'adaptive', 'disabled'] as const;

// One list of modes for the library and the command: the permission layer owns it.
export { PERMISSION_MODES };
export type PermissionModeName = PermissionMode;

/**
 * Modes Claude Code 2.1.235 lists that rxagent has no machinery for: `manual` is its name for
 * asking every time (our `default`); `auto` asks a classifier model, which rxagent does not have,
 * so it behaves as `default` (the run warns).
 */
export const MODE_ALIASES: Readonly<Record<string, PermissionMode>> = { manual: 'default', auto: 'default' };

export interface CliOptions {
  readonly print: boolean;
  readonly prompt: string | undefined;
  readonly outputFormat: OutputFormat;
  readonly inputFormat: InputFormat;
  /** `--replay-user-messages`: echo each stream-json user line back on stdout. */
  readonly replayUserMessages: boolean;
  readonly verbose: boolean;
  readonly includePartialMessages: boolean;
  readonly includeHookEvents: boolean;
  readonly maxTurns: number | undefined;
  /** `--task-budget` (the SDK's `taskBudget.total`): tokens, sent as `output_config.task_budget`. */
  readonly taskBudget: number | undefined;
  readonly model: string;
  /** Whether `--model` was given (settings files and `set_model` may choose otherwise). */
  readonly modelGiven: boolean;
  readonly fallbackModel: string | undefined;
  /** Tool names; undefined = all built-ins (also `--tools default`); [] = none. */
  readonly tools: readonly string[] | undefined;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly permissionMode: PermissionModeName;
  /** Whether the mode is decided (`--permission-mode`, `--dangerously-skip-permissions`, or `--agent`'s definition): a settings file's `permissions.defaultMode` applies otherwise. */
  readonly permissionModeGiven: boolean;
  /** The mode as given when it is one rxagent maps onto another (`auto`), for a warning. */
  readonly permissionModeAlias: string | undefined;
  /** `--permission-prompt-tool`: `stdio` asks the host over the control protocol. */
  readonly permissionPromptTool: string | undefined;
  /** `--permission-prompts`: `none` means nobody answers a permission question (the host is never asked). */
  readonly permissionPrompts: 'host' | 'none';
  readonly maxBudgetUsd: number | undefined;
  readonly sessionId: string | undefined;
  readonly resume: string | undefined;
  readonly resumeSessionAt: string | undefined;
  readonly continue: boolean;
  readonly forkSession: boolean;
  readonly noSessionPersistence: boolean;
  /** `--session-store <url>`: PostgreSQL instead of the JSONL files (RXAGENT_SESSION_STORE when unset). */
  readonly sessionStore: string | undefined;
  /** `--settings`: a file name or inline JSON. */
  readonly settings: string | undefined;
  /** `--managed-settings <file-or-json>`: the Agent SDK's policy tier (deny/ask rules only, see loadSettings). */
  readonly managedSettings: string | undefined;
  /** undefined = every source (Claude Code's default). */
  readonly settingSources: readonly SettingSource[] | undefined;
  readonly addDirs: readonly string[];
  readonly systemPrompt: string | undefined;
  readonly systemPromptFile: string | undefined;
  readonly appendSystemPrompt: string | undefined;
  readonly appendSystemPromptFile: string | undefined;
  /** `--json-schema`: the JSON Schema text of the structured output. */
  readonly jsonSchema: string | undefined;
  /** `--agents <json>`: subagent definitions keyed by name (parsed when the run is built). */
  readonly agents: string | undefined;
  /** `--agent <name>`: run the main thread as that agent. */
  readonly agent: string | undefined;
  readonly maxThinkingTokens: number | undefined;
  readonly thinking: (typeof THINKING_MODES)[number] | undefined;
  readonly effort: string | undefined;
  readonly betas: readonly string[];
  readonly mcpConfig: readonly string[];
  readonly strictMcpConfig: boolean;
  readonly debug: boolean;
  readonly debugFile: string | undefined;
  /** Flags accepted for the SDK's sake that change nothing here (see `IGNORED_FLAGS`). */
  readonly ignoredFlags: readonly string[];
  /** `--no-sandbox`: run shell commands and hooks without the OS sandbox (said at start). */
  readonly noSandbox: boolean;
  /** `--timeout <seconds>`: the whole run's deadline in ms; undefined = the mode's default. */
  readonly timeoutMs: number | undefined;
  readonly help: boolean;
  readonly version: boolean;
}

/** A usage error: exit status 2, one line on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Rewrites `--flag a b c` of a variadic flag into `--flag=a --flag=b --flag=c`: every word up to
 * the next one starting with `-` belongs to the flag. `--flag=a` stays one value, as in Claude Code.
 */
export function expandVariadic(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    if (word === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (!VARIADIC_FLAGS.has(word)) {
      // `--debug=api,hooks`: Claude Code's category filter; rxagent's diagnostics have no categories.
      out.push(word.startsWith('--debug=') ? '--debug' : word);
      continue;
    }
    let taken = 0;
    while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) {
      out.push(`${word}=${argv[++i] as string}`);
      taken++;
    }
    // No word follows: leave it to parseArgs, which names the flag missing its value.
    if (taken === 0) out.push(word);
  }
  return out;
}

/** Splits tool lists the way users write them: comma- or space-separated, parentheses kept together. */
export function splitToolList(values: readonly string[]): string[] {
  try {
    return values.flatMap(splitRuleList);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got '${value}')`);
}

function permissionPromptsOf(value: string | undefined): 'host' | 'none' {
  if (value === undefined || value === 'host' || value === 'none') return value ?? 'host';
  throw new UsageError(`--permission-prompts must be host or none (got '${value}')`);
}

function positiveNumber(name: string, value: string | undefined, integer: boolean, allowZero = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !allowZero) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be a ${allowZero ? '' : 'positive '}${integer ? 'whole ' : ''}number (got '${value}')`);
  }
  return n;
}

function permissionModeOf(value: string | undefined, skip: boolean): { mode: PermissionMode; alias: string | undefined } {
  if (skip) return { mode: 'bypassPermissions', alias: undefined };
  if (value !== undefined && MODE_ALIASES[value] !== undefined) return { mode: MODE_ALIASES[value], alias: value };
  const listed = [...PERMISSION_MODES, ...Object.keys(MODE_ALIASES)];
  if (value !== undefined && !listed.includes(value)) {
    throw new UsageError(`--permission-mode must be one of ${listed.join(', ')} (got '${value}')`);
  }
  return { mode: (value as PermissionMode | undefined) ?? 'default', alias: undefined };
}

function settingSourcesOf(values: readonly string[] | undefined): SettingSource[] | undefined {
  if (values === undefined) return undefined;
  const names = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  for (const name of names) oneOf('setting-sources', name, SETTING_SOURCES, 'user');
  return [...new Set(names as SettingSource[])];
}

export function parseCliArgs(argv: readonly string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: expandVariadic(argv), options: OPTION_CONFIG, allowPositionals: true, strict: true });
  } catch (error) {
    // node's messages name the option; keep them, without the stack, on one line.
    const message = (error as Error).message.replace(/\. To specify a positional.*$/s, '');
    throw new UsageError(message.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' '));
  }
  const v = parsed.values;
  const last = <T>(list: readonly T[] | undefined): T | undefined => list?.[list.length - 1];
  const sessionId = v['session-id'];
  if (sessionId !== undefined && !UUID.test(sessionId)) {
    throw new UsageError(`--session-id must be a UUID (got '${sessionId}')`);
  }
  const { mode: permissionMode, alias: permissionModeAlias } = permissionModeOf(v['permission-mode'], v['dangerously-skip-permissions'] === true);
  if (v.resume !== undefined && v.continue) throw new UsageError('--resume and --continue cannot be used together');
  if (v['fork-session'] && v.resume === undefined && !v.continue) {
    throw new UsageError('--fork-session needs --resume <id> or --continue');
  }
  if (v['system-prompt'] !== undefined && v['system-prompt-file'] !== undefined) {
    throw new UsageError('--system-prompt and --system-prompt-file cannot be used together');
  }
  if (v['append-system-prompt'] !== undefined && v['append-system-prompt-file'] !== undefined) {
    throw new UsageError('--append-system-prompt and --append-system-prompt-file cannot be used together');
  }
  const inputFormat = oneOf('input-format', v['input-format'], INPUT_FORMATS, 'text');
  const outputFormat = oneOf('output-format', v['output-format'], OUTPUT_FORMATS, 'text');
  if (inputFormat === 'stream-json' && outputFormat !== 'stream-json') {
    throw new UsageError('--input-format stream-json needs --output-format stream-json');
  }
  if (v['resume-session-at'] !== undefined && v.resume === undefined) throw new UsageError('--resume-session-at needs --resume <id>');
  if (v['include-hook-events'] === true && outputFormat !== 'stream-json') throw new UsageError('--include-hook-events needs --output-format stream-json');
  const print = v.print === true || inputFormat === 'stream-json';
  // The interactive view has no debug log and always keeps its transcript: say so rather than ignore.
  for (const flag of ['debug', 'debug-file', 'no-session-persistence'] as const) {
    if (!print && v[flag] !== undefined) throw new UsageError(`--${flag} works with -p (print mode) only`);
  }
  const toolWords = v.tools === undefined ? undefined : splitToolList(v.tools).filter((t) => t !== '""');
  const tools = toolWords === undefined || (toolWords.length === 1 && toolWords[0] === 'default') ? undefined : toolWords;
  const prompt = parsed.positionals.length > 0 ? parsed.positionals.join(' ') : undefined;
  return {
    // The SDK starts its CLI with `--input-format stream-json` and no `-p`: that is print mode too.
    print,
    prompt,
    outputFormat,
    inputFormat,
    replayUserMessages: v['replay-user-messages'] === true,
    verbose: v.verbose === true,
    includePartialMessages: v['include-partial-messages'] === true,
    includeHookEvents: v['include-hook-events'] === true,
    maxTurns: positiveNumber('max-turns', v['max-turns'], true),
    taskBudget: positiveNumber('task-budget', v['task-budget'], true),
    model: v.model ?? DEFAULT_MODEL,
    modelGiven: v.model !== undefined,
    fallbackModel: v['fallback-model'],
    tools,
    allowedTools: splitToolList([...(v.allowedTools ?? []), ...(v['allowed-tools'] ?? [])]),
    disallowedTools: splitToolList([...(v.disallowedTools ?? []), ...(v['disallowed-tools'] ?? [])]),
    permissionMode,
    permissionModeGiven: v['permission-mode'] !== undefined || v['dangerously-skip-permissions'] === true,
    permissionModeAlias,
    permissionPromptTool: v['permission-prompt-tool'],
    permissionPrompts: permissionPromptsOf(v['permission-prompts']),
    maxBudgetUsd: positiveNumber('max-budget-usd', v['max-budget-usd'], false),
    sessionId,
    resume: v.resume,
    resumeSessionAt: v['resume-session-at'],
    continue: v.continue === true,
    forkSession: v['fork-session'] === true,
    noSessionPersistence: v['no-session-persistence'] === true,
    sessionStore: v['session-store'],
    settings: v.settings,
    managedSettings: v['managed-settings'],
    settingSources: settingSourcesOf(v['setting-sources']),
    addDirs: v['add-dir'] ?? [],
    systemPrompt: v['system-prompt'],
    systemPromptFile: v['system-prompt-file'],
    appendSystemPrompt: v['append-system-prompt'],
    appendSystemPromptFile: v['append-system-prompt-file'],
    jsonSchema: v['json-schema'],
    agents: v.agents,
    agent: v.agent,
    maxThinkingTokens: positiveNumber('max-thinking-tokens', v['max-thinking-tokens'], true, true),
    thinking: v.thinking === undefined ? undefined : oneOf('thinking', v.thinking, THINKING_MODES, 'adaptive'),
    effort: v.effort === undefined ? undefined : oneOf('effort', v.effort, EFFORT_LEVELS, 'high'),
    betas: splitToolList(v.betas ?? []),
    mcpConfig: v['mcp-config'] ?? [],
    strictMcpConfig: v['strict-mcp-config'] === true,
    debug: v.debug !== undefined || v['debug-file'] !== undefined,
    debugFile: last(v['debug-file']),
    ignoredFlags: Object.keys(IGNORED_FLAGS).filter((name) => (v as Record<string, unknown>)[name] !== undefined).map((n) => `--${n}`),
    noSandbox: v['no-sandbox'] === true,
    timeoutMs: timeoutMsFrom(v.timeout),
    help: v.help === true,
    version: v.version === true,
  };
}

/** `--timeout <seconds>`: a positive number of seconds, as ms. */
function timeoutMsFrom(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--timeout must be a positive number of seconds (got '${value}')`);
  return Math.round(seconds * 1000);
}
