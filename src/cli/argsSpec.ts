/**
 * The option table of `rxagent` (node `parseArgs` config) and its help text, kept apart from the
 * parsing logic in `args.ts` so each file has one job.
 */

// One source of truth for the default model: the model table.
import { DEFAULT_MODEL } from '../context/modelTable.js';

export { DEFAULT_MODEL };

/**
 * Flags the Claude Agent SDK may pass that configure machinery rxagent does not have (plugins,
 * channels, session mirroring, ...). They are accepted so the SDK's command line parses; the run
 * names them in one warning.
 */
export const IGNORED_FLAGS = {
  'thinking-display': { type: 'string' },
  channels: { type: 'string', multiple: true },
  'session-mirror': { type: 'boolean' },
  'project-config-root': { type: 'string' },
  'plugin-dir': { type: 'string', multiple: true },
  'plugin-dir-no-mcp': { type: 'string', multiple: true },
  'resume-drops-turn': { type: 'string' },
  'managed-settings-in-initialize': { type: 'boolean' },
  'managed-settings': { type: 'string' },
} as const;

export const OPTION_CONFIG = {
  print: { type: 'boolean', short: 'p' },
  'output-format': { type: 'string' },
  'input-format': { type: 'string' },
  'replay-user-messages': { type: 'boolean' },
  verbose: { type: 'boolean' },
  'include-partial-messages': { type: 'boolean' },
  'include-hook-events': { type: 'boolean' },
  'max-turns': { type: 'string' },
  // The SDK's taskBudget.total: the API's advisory output_config.task_budget (beta task-budgets-2026-03-13).
  'task-budget': { type: 'string' },
  model: { type: 'string' },
  'fallback-model': { type: 'string' },
  tools: { type: 'string', multiple: true },
  allowedTools: { type: 'string', multiple: true },
  'allowed-tools': { type: 'string', multiple: true },
  disallowedTools: { type: 'string', multiple: true },
  'disallowed-tools': { type: 'string', multiple: true },
  'permission-mode': { type: 'string' },
  'permission-prompt-tool': { type: 'string' },
  // The SDK's permissionPrompts: none = nobody answers, what would ask is refused (the host is never asked).
  'permission-prompts': { type: 'string' },
  'dangerously-skip-permissions': { type: 'boolean' },
  // Claude Code needs it before bypassPermissions may be chosen later (set_permission_mode);
  // rxagent allows every mode switch, so it is accepted and changes nothing.
  'allow-dangerously-skip-permissions': { type: 'boolean' },
  'max-budget-usd': { type: 'string' },
  'session-id': { type: 'string' },
  'session-store': { type: 'string' },
  resume: { type: 'string', short: 'r' },
  'resume-session-at': { type: 'string' },
  continue: { type: 'boolean', short: 'c' },
  'fork-session': { type: 'boolean' },
  'no-session-persistence': { type: 'boolean' },
  settings: { type: 'string' },
  'setting-sources': { type: 'string', multiple: true },
  'add-dir': { type: 'string', multiple: true },
  'system-prompt': { type: 'string' },
  'system-prompt-file': { type: 'string' },
  'append-system-prompt': { type: 'string' },
  'append-system-prompt-file': { type: 'string' },
  'json-schema': { type: 'string' },
  // The SDK's word that settings / disallowed tools come in its initialize request, and that it
  // sends initialize first: a first initialize line is always read before the run is built.
  'initialize-fields': { type: 'string' },
  'await-initialize': { type: 'boolean' },
  agents: { type: 'string' },
  agent: { type: 'string' },
  'max-thinking-tokens': { type: 'string' },
  thinking: { type: 'string' },
  effort: { type: 'string' },
  betas: { type: 'string', multiple: true },
  'mcp-config': { type: 'string', multiple: true },
  'strict-mcp-config': { type: 'boolean' },
  debug: { type: 'boolean', short: 'd' },
  'debug-file': { type: 'string', multiple: true },
  'no-sandbox': { type: 'boolean' },
  timeout: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  ...IGNORED_FLAGS,
} as const;

/** Flags whose value is every word up to the next flag (Claude Code's variadic options). */
export const VARIADIC_FLAGS: ReadonlySet<string> = new Set([
  '--tools',
  '--allowedTools',
  '--allowed-tools',
  '--disallowedTools',
  '--disallowed-tools',
  '--add-dir',
  '--betas',
  '--mcp-config',
]);

export const HELP_TEXT = `Usage: rxagent [options] [prompt]

An agent loop on the Anthropic Messages API, run as an RxJS pipeline.

Options:
  -p, --print                       Run one turn without the interactive view and print the result
                                    (prompt from the argument, then any text piped on stdin)
  --output-format <format>          text (default), json, or stream-json (one JSON object per line)
  --input-format <format>           text (default) or stream-json: user messages and control
                                    requests as JSON lines on stdin, one turn per message (the
                                    Claude Agent SDK's protocol; needs --output-format stream-json)
  --replay-user-messages            With stream-json input: echo each user message on stdout
  --verbose                         With json: every stream-json line as one array; stacks of
                                    internal errors (stream-json does not need it)
  --include-partial-messages        With stream-json: also print raw stream events as they arrive
  --include-hook-events             With stream-json: print hook_started / hook_response lines
  --max-turns <n>                   Stop after n model iterations
  --task-budget <tokens>            Advisory token budget for the whole agentic loop (output_config.task_budget)
  --model <model>                   Model name or alias: sonnet, opus, haiku (default: ${DEFAULT_MODEL})
  --fallback-model <model>          Model to switch to when the main one stays overloaded
  --tools <names...>                Tools to offer (Read Write Edit Glob Grep Bash Agent; "" for
                                    none; default for all; WebSearch WebFetch: the API's server
                                    tools, only when named)
  --allowedTools <rules...>         Permission rules that allow, e.g. Read "Bash(git diff:*)"
  --disallowedTools <rules...>      Permission rules that deny (a bare tool name removes the tool)
  --permission-mode <mode>          default, acceptEdits, bypassPermissions, plan, dontAsk (manual
                                    and auto are accepted and act as default)
  --permission-prompt-tool <tool>   stdio: ask the host over the control protocol
  --permission-prompts <host|none>  none: nobody answers; a call that would ask is refused
  --dangerously-skip-permissions    Same as --permission-mode bypassPermissions
  --max-budget-usd <amount>         Stop when the run's cost reaches this many US dollars
  --json-schema <schema>            Structured output: the answer must match this JSON Schema and
                                    is printed as result.structured_output
  --session-id <uuid>               Use this id for a new session
  -r, --resume <id>                 Resume a session by id
  --resume-session-at <uuid>        With --resume: continue from that assistant message
  -c, --continue                    Resume the most recent session in this directory
  --fork-session                    With --resume/--continue: continue under a new session id
  --no-session-persistence          Keep no transcript on disk
  --session-store <url>             Keep transcripts in PostgreSQL (postgres://…; default: files;
                                    also RXAGENT_SESSION_STORE)
  --settings <file-or-json>         Extra settings (hooks, permission rules, env, model)
  --managed-settings <file-or-json> Policy settings from a parent process (the Agent SDK's
                                    managedSettings): only their deny and ask rules apply
  --setting-sources <list>          Which of user,project,local settings to read (default all)
  --add-dir <dirs...>               Other directories the file tools may use
  --system-prompt <text>            Replace the system prompt (--system-prompt-file <file>)
  --append-system-prompt <text>     Add to the system prompt (--append-system-prompt-file <file>)
  --agents <json>                   Subagent definitions, e.g. '{"reviewer": {"description": "...",
                                    "prompt": "..."}}' (added to the agents/*.md files; wins by name)
  --agent <name>                    Run the main thread as that agent (its prompt and tools)
  --max-thinking-tokens <n>         Thinking budget (0: off)
  --thinking <mode>                 enabled, adaptive or disabled
  --effort <level>                  low, medium, high, xhigh or max
  --betas <names...>                anthropic-beta headers to send
  -d, --debug                       Diagnostics on stderr (--debug-file <file>: to a file)
  --no-sandbox                      Run Bash and hook commands without the OS sandbox (bubblewrap)
  --timeout <seconds>               End the run after this long (-p: default 3600; interactive and
                                    --input-format stream-json: each turn, off by default)
  -h, --help                        Show this help
  -v, --version                     Show the version

Environment:
  ANTHROPIC_API_KEY      API key (sent as x-api-key)
  ANTHROPIC_AUTH_TOKEN   Bearer token (sent as Authorization: Bearer)
  ANTHROPIC_BASE_URL     API base URL (default https://api.anthropic.com)
  ANTHROPIC_CUSTOM_HEADERS  Extra request headers, one "Name: value" per line
  ANTHROPIC_BETAS        anthropic-beta values, comma-separated
  CLAUDE_CODE_MAX_RETRIES, RXAGENT_MAX_RETRIES  Retries per model request (default 10)
  API_TIMEOUT_MS         Total time of one model request in ms (default 600000; 0 = none)
  ANTHROPIC_MODEL        Model when --model is not given; ANTHROPIC_SMALL_FAST_MODEL: what haiku means
  CLAUDE_CODE_MAX_OUTPUT_TOKENS  max_tokens (default 32000, capped at the model's limit)
  MAX_THINKING_TOKENS    Thinking budget (0: off); thinking is on by default where the model has it
  DISABLE_PROMPT_CACHING Set to 1 to send no cache_control breakpoints
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY  Proxy for model requests; NODE_EXTRA_CA_CERTS: extra trusted CAs
  BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS, BASH_MAX_OUTPUT_LENGTH  The Bash tool's limits
A settings file's "env" is applied over these for the run (the client, Bash, hooks, MCP servers).

Exit status: 0 when the turn succeeded, 1 on an error result, 2 on a usage error.
`;
