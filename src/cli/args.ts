/**
 * Command-line parsing for `rxagent`. Option names and meanings follow Claude Code's print mode
 * wherever one exists, so scripts written for it can point at rxagent unchanged.
 */
import { parseArgs } from 'node:util';
import { PERMISSION_MODES, type PermissionMode } from '../permissions/modes.js';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

// One list of modes for the library and the command: the permission layer owns it.
export { PERMISSION_MODES };
export type PermissionModeName = PermissionMode;

export const DEFAULT_MODEL = 'claude-sonnet-4-5';
export const DEFAULT_MAX_TOKENS = 32_000;

export interface CliOptions {
  readonly print: boolean;
  readonly prompt: string | undefined;
  readonly outputFormat: OutputFormat;
  readonly inputFormat: 'text';
  readonly verbose: boolean;
  readonly includePartialMessages: boolean;
  readonly maxTurns: number | undefined;
  readonly model: string;
  readonly fallbackModel: string | undefined;
  /** Built-in tool names; undefined = all built-ins; [] = none. */
  readonly tools: readonly string[] | undefined;
  readonly allowedTools: readonly string[];
  readonly disallowedTools: readonly string[];
  readonly permissionMode: PermissionModeName;
  readonly maxBudgetUsd: number | undefined;
  readonly sessionId: string | undefined;
  readonly resume: string | undefined;
  readonly continue: boolean;
  readonly forkSession: boolean;
  readonly settings: string | undefined;
  readonly addDirs: readonly string[];
  readonly systemPrompt: string | undefined;
  readonly appendSystemPrompt: string | undefined;
  /** `--agents <json>`: subagent definitions keyed by name (parsed when the run is built). */
  readonly agents: string | undefined;
  readonly help: boolean;
  readonly version: boolean;
}

/** A usage error: exit status 2, one line on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const optionConfig = {
  print: { type: 'boolean', short: 'p' },
  'output-format': { type: 'string' },
  'input-format': { type: 'string' },
  verbose: { type: 'boolean' },
  'include-partial-messages': { type: 'boolean' },
  'max-turns': { type: 'string' },
  model: { type: 'string' },
  'fallback-model': { type: 'string' },
  tools: { type: 'string', multiple: true },
  allowedTools: { type: 'string', multiple: true },
  'allowed-tools': { type: 'string', multiple: true },
  disallowedTools: { type: 'string', multiple: true },
  'disallowed-tools': { type: 'string', multiple: true },
  'permission-mode': { type: 'string' },
  'dangerously-skip-permissions': { type: 'boolean' },
  'max-budget-usd': { type: 'string' },
  'session-id': { type: 'string' },
  resume: { type: 'string', short: 'r' },
  continue: { type: 'boolean', short: 'c' },
  'fork-session': { type: 'boolean' },
  settings: { type: 'string' },
  'add-dir': { type: 'string', multiple: true },
  'system-prompt': { type: 'string' },
  'append-system-prompt': { type: 'string' },
  agents: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Split tool rule lists the way users write them: comma- or space-separated, but a space or
 * comma inside parentheses belongs to the rule (`Bash(git diff:*)`).
 */
export function splitToolList(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = '';
    for (const ch of value) {
      if (ch === '(') depth++;
      if (ch === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (ch === ',' || ch === ' ' || ch === '\t' || ch === '\n')) {
        if (current.trim()) out.push(current.trim());
        current = '';
        continue;
      }
      current += ch;
    }
    if (current.trim()) out.push(current.trim());
  }
  return out;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got '${value}')`);
}

function positiveNumber(name: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${name} must be a positive ${integer ? 'whole ' : ''}number (got '${value}')`);
  }
  return n;
}

export function parseCliArgs(argv: readonly string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: optionConfig, allowPositionals: true, strict: true });
  } catch (error) {
    // node's messages name the option; keep them, without the stack.
    // node's messages may span lines; a usage error is one line.
    const message = (error as Error).message.replace(/\. To specify a positional.*$/s, '');
    throw new UsageError(message.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' '));
  }
  const v = parsed.values;
  const sessionId = v['session-id'];
  if (sessionId !== undefined && !UUID.test(sessionId)) {
    throw new UsageError(`--session-id must be a UUID (got '${sessionId}')`);
  }
  const skip = v['dangerously-skip-permissions'] === true;
  const permissionMode = skip
    ? 'bypassPermissions'
    : oneOf('permission-mode', v['permission-mode'], PERMISSION_MODES, 'default');
  if (v.resume !== undefined && v.continue) throw new UsageError('--resume and --continue cannot be used together');
  if (v['fork-session'] && v.resume === undefined && !v.continue) {
    throw new UsageError('--fork-session needs --resume <id> or --continue');
  }
  const inputFormat = v['input-format'];
  if (inputFormat !== undefined && inputFormat !== 'text') {
    throw new UsageError(`--input-format ${inputFormat} is not supported (only text)`);
  }
  const tools = v.tools === undefined ? undefined : splitToolList(v.tools).filter((t) => t !== '' && t !== '""');
  return {
    print: v.print === true,
    prompt: parsed.positionals.length > 0 ? parsed.positionals.join(' ') : undefined,
    outputFormat: oneOf('output-format', v['output-format'], OUTPUT_FORMATS, 'text'),
    inputFormat: 'text',
    verbose: v.verbose === true,
    includePartialMessages: v['include-partial-messages'] === true,
    maxTurns: positiveNumber('max-turns', v['max-turns'], true),
    model: v.model ?? DEFAULT_MODEL,
    fallbackModel: v['fallback-model'],
    tools,
    allowedTools: splitToolList([...(v.allowedTools ?? []), ...(v['allowed-tools'] ?? [])]),
    disallowedTools: splitToolList([...(v.disallowedTools ?? []), ...(v['disallowed-tools'] ?? [])]),
    permissionMode,
    maxBudgetUsd: positiveNumber('max-budget-usd', v['max-budget-usd'], false),
    sessionId,
    resume: v.resume,
    continue: v.continue === true,
    forkSession: v['fork-session'] === true,
    settings: v.settings,
    addDirs: v['add-dir'] ?? [],
    systemPrompt: v['system-prompt'],
    appendSystemPrompt: v['append-system-prompt'],
    agents: v.agents,
    help: v.help === true,
    version: v.version === true,
  };
}

export const HELP_TEXT = `Usage: rxagent [options] [prompt]

An agent loop on the Anthropic Messages API, run as an RxJS pipeline.

Options:
  -p, --print                       Run one turn without the interactive view and print the result
                                    (prompt from the argument, or from stdin when none is given)
  --output-format <format>          text (default), json, or stream-json (one JSON object per line)
  --verbose                         With json: every stream-json line as one array; stacks of
                                    internal errors (stream-json does not need it)
  --include-partial-messages        With stream-json: also print raw stream events as they arrive
                                    (ignored by the other formats)
  --max-turns <n>                   Stop after n model iterations
  --model <model>                   Model name (default: ${DEFAULT_MODEL})
  --fallback-model <model>          Model to switch to when the main one stays overloaded
  --tools <list>                    Tools to offer (Read,Write,Edit,Glob,Grep,Bash,Agent; "" for none)
  --allowedTools <rules>            Permission rules that allow, e.g. "Read Bash(git diff:*)"
  --disallowedTools <rules>         Permission rules that deny
  --permission-mode <mode>          default, acceptEdits, bypassPermissions, plan, or dontAsk
  --dangerously-skip-permissions    Same as --permission-mode bypassPermissions
  --max-budget-usd <amount>         Stop when the run's cost reaches this many US dollars
  --session-id <uuid>               Use this id for a new session
  -r, --resume <id>                 Resume a session by id
  -c, --continue                    Resume the most recent session in this directory
  --fork-session                    With --resume/--continue: continue under a new session id
  --settings <file>                 Extra settings file (hooks, permission rules)
  --add-dir <dir>                   Another directory the file tools may use
  --system-prompt <text>            Replace the system prompt
  --append-system-prompt <text>     Add to the system prompt
  --agents <json>                   Subagent definitions, e.g. '{"reviewer": {"description": "...",
                                    "prompt": "..."}}' (added to .rxagent/agents/*.md; wins by name)
  -h, --help                        Show this help
  -v, --version                     Show the version

Environment:
  ANTHROPIC_API_KEY      API key (sent as x-api-key)
  ANTHROPIC_BASE_URL     API base URL (default https://api.anthropic.com)
  RXAGENT_MAX_RETRIES    Retries per model request (default 10)

Exit status: 0 when the turn succeeded, 1 on an error result, 2 on a usage error.
`;
