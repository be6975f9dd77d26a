/**
 * The slash commands of the interactive view: a line starting with `/` is a command handled
 * here, never sent to the model as text (a custom command sends its own prompt; an MCP prompt,
 * `/mcp__<server>__<prompt>`, is expanded by the server). Pure: parsing,
 * the table of built-ins, Tab completion and the /help text; the handlers are in commandHandlers.
 */
import type { CustomCommand } from './customCommands.js';

export const BUILTIN_COMMANDS = [
  { name: 'help', args: '', description: 'list the commands and keys' },
  { name: 'clear', args: '', description: 'start a new conversation (new session id); the old one stays resumable' },
  { name: 'compact', args: '[instructions]', description: 'summarize the conversation now, optionally with instructions for the summary' },
  { name: 'cost', args: '', description: 'tokens, cost and time of this run' },
  { name: 'model', args: '[name]', description: 'show the model, or switch to another one (the conversation goes on)' },
  { name: 'resume', args: '[session id]', description: 'pick an earlier session of this directory and go on with it' },
  { name: 'status', args: '', description: 'version, session, model, permission mode, settings files' },
  { name: 'permissions', args: '[allow|deny|ask <rule> | remove <rule>]', description: 'show the permission rules, or add/remove one in .claude/settings.local.json' },
  { name: 'agents', args: '', description: 'the subagents the model can start' },
  { name: 'mcp', args: '[login <server>]', description: 'MCP server status; sign in to a remote server' },
  { name: 'exit', args: '', description: 'leave (also Ctrl-D)' },
] as const;

export type BuiltinName = (typeof BUILTIN_COMMANDS)[number]['name'];

export type ParsedInput =
  | { readonly type: 'prompt'; readonly text: string }
  | { readonly type: 'builtin'; readonly name: BuiltinName; readonly args: string }
  | { readonly type: 'custom'; readonly command: CustomCommand; readonly args: string }
  | { readonly type: 'unknown'; readonly name: string };

const isBuiltin = (name: string): name is BuiltinName => BUILTIN_COMMANDS.some((c) => c.name === name);

/**
 * What a submitted text is. A `/` followed by a command-like word is a command; anything else
 * starting with `/` (an absolute path such as `/etc/hosts is odd`) is a prompt. Built-ins win
 * over a custom command of the same name.
 */
export function parseInput(text: string, custom: ReadonlyMap<string, CustomCommand>): ParsedInput {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9_.:-]*)(?:[ \t\n]+([\s\S]*))?$/.exec(text.trim());
  if (!match) return { type: 'prompt', text };
  const name = match[1]!;
  const args = (match[2] ?? '').trim();
  if (isBuiltin(name)) return { type: 'builtin', name, args };
  const command = custom.get(name);
  if (command) return { type: 'custom', command, args };
  return { type: 'unknown', name };
}

/** An MCP server's prompt as a command (`mcp__<server>__<prompt>`), as the run lists it now. */
export interface PromptCommand {
  readonly name: string;
  readonly description: string;
  readonly argumentHint: string;
}

/** The run's slash commands that are MCP prompts (the others are the custom commands, read here). */
export const mcpPromptCommands = (commands: readonly PromptCommand[]): PromptCommand[] => commands.filter((c) => c.name.startsWith('mcp__'));

/** Tab: the command names that complete what was typed (only while it is `/` and a partial word). */
export function completeCommand(text: string, custom: ReadonlyMap<string, CustomCommand>, prompts: readonly PromptCommand[] = []): string[] {
  const match = /^\/([A-Za-z0-9_.:-]*)$/.exec(text);
  if (!match) return [];
  const names = [...BUILTIN_COMMANDS.map((c) => c.name), ...[...custom.keys()].filter((n) => !isBuiltin(n)), ...prompts.map((p) => p.name)];
  return names.filter((n) => n.startsWith(match[1]!)).map((n) => `/${n}`);
}

export const KEYS_HELP = [
  ['Enter', 'send the prompt (while a turn runs: add it to that turn)'],
  ['Shift+Enter, Meta+Enter, Ctrl-J, \\ then Enter', 'new line in the prompt'],
  ['paste', 'a pasted block stays one prompt, newlines and order kept'],
  ['Up / Down', 'move between lines, then through earlier prompts of this project'],
  ['Tab', 'complete a /command (an MCP prompt too)'],
  ['Esc', 'interrupt the running turn'],
  ['Ctrl-C', 'clear the prompt, else interrupt the turn; again (or idle) to exit'],
  ['Ctrl-L', 'clear the screen'],
  ['Ctrl-D', 'exit (with an empty prompt)'],
] as const;

export function helpText(custom: ReadonlyMap<string, CustomCommand>, prompts: readonly PromptCommand[] = []): string {
  const lines = ['Commands:'];
  // A term longer than the column gets its description on the next line.
  const width = 26;
  const entry = (term: string, what: string) =>
    lines.push(term.length < width ? `  ${term.padEnd(width)}${what}` : `  ${term}\n  ${' '.repeat(width)}${what}`);
  for (const c of BUILTIN_COMMANDS) entry(`/${c.name} ${c.args}`.trim(), c.description);
  if (custom.size > 0) {
    lines.push('Custom commands (.claude/commands, .rxagent/commands):');
    for (const c of custom.values()) entry(`/${c.name}`, c.description || c.file);
  }
  if (prompts.length > 0) {
    lines.push("MCP prompts (the server's prompt becomes your message):");
    for (const p of prompts) entry(`/${p.name} ${p.argumentHint}`.trim(), p.description || '(no description)');
  }
  lines.push('Keys:');
  for (const [key, what] of KEYS_HELP) entry(key, what);
  return `${lines.join('\n')}\n`;
}
