/**
 * MCP prompts as slash commands, named as Claude Code names them: a server's prompt `review` on
 * server `github` is `/mcp__github__review`. The words after the command fill the prompt's
 * declared arguments in order (the last argument takes the rest of the line, so a free-text
 * argument needs no quoting); a missing required argument is a clear error naming the usage and
 * nothing is sent. The server's answer (`prompts/get`) becomes the user message: its messages'
 * content in order, through the same conversion as tool results (text, images, embedded
 * resources); an assistant-role message's text is marked as such, since one user turn carries it.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { ImageBlock, MessageParam, TextBlock } from '../protocol/content.js';
import { mcpContentToBlocks } from './callResult.js';
import { mcpToolName } from './toolName.js';

export interface McpPromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required: boolean;
}

/** One server prompt, as a command. */
export interface McpPrompt {
  /** `mcp__<server>__<prompt>`, typed after a `/`. */
  readonly command: string;
  readonly server: string;
  /** The prompt's own name on its server. */
  readonly name: string;
  readonly description: string;
  readonly arguments: readonly McpPromptArgument[];
  /** Asks the server for the prompt with these arguments. */
  get(args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult>;
}

/** A typed MCP-prompt command that cannot be sent (missing argument, the server's refusal). */
export class McpPromptError extends Error {
  override readonly name = 'McpPromptError';
}

export function promptsOfServer(server: string, listed: readonly Prompt[], client: Pick<Client, 'getPrompt'>, timeoutMs: number): McpPrompt[] {
  return listed.map((prompt) => ({
    command: mcpToolName(server, prompt.name),
    server,
    name: prompt.name,
    description: prompt.description ?? prompt.title ?? '',
    arguments: (prompt.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), required: a.required === true })),
    get: (args, signal) => client.getPrompt({ name: prompt.name, arguments: args }, { signal, timeout: timeoutMs }),
  }));
}

/** `/mcp__server__prompt a b`: the prompt named, with what followed it; otherwise undefined. */
export function parsePromptCommand(text: string, prompts: readonly McpPrompt[]): { prompt: McpPrompt; rest: string } | undefined {
  const match = /^\/(mcp__[A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return undefined;
  const prompt = prompts.find((p) => p.command === match[1]);
  return prompt ? { prompt, rest: (match[2] ?? '').trim() } : undefined;
}

/** `<city> [state]`: the arguments as a command line shows them. */
export function argumentHintOf(prompt: Pick<McpPrompt, 'arguments'>): string {
  return prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ');
}

export function usageOf(prompt: McpPrompt): string {
  return `/${prompt.command} ${argumentHintOf(prompt)}`.trim();
}

/** The words as the prompt's arguments, in order; the last declared argument takes the rest. */
export function promptArguments(prompt: McpPrompt, rest: string): Record<string, string> {
  const words = rest === '' ? [] : rest.split(/\s+/);
  const declared = prompt.arguments;
  if (declared.length === 0 && words.length > 0) {
    throw new McpPromptError(`/${prompt.command} takes no arguments (got "${rest}")`);
  }
  const args: Record<string, string> = {};
  declared.forEach((argument, index) => {
    const last = index === declared.length - 1;
    const value = last ? words.slice(index).join(' ') : words[index];
    if (value !== undefined && value !== '') args[argument.name] = value;
  });
  const missing = declared.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0) {
    throw new McpPromptError(`/${prompt.command} needs ${missing.map((m) => `<${m}>`).join(' ')} (usage: ${usageOf(prompt)})`);
  }
  return args;
}

/** The server's prompt as one user message. */
export function promptMessageOf(result: GetPromptResult): MessageParam {
  const content: (TextBlock | ImageBlock)[] = [];
  for (const message of result.messages) {
    const blocks = mcpContentToBlocks({ content: [message.content] });
    if (message.role === 'assistant') {
      for (const block of blocks) content.push(block.type === 'text' ? { type: 'text', text: `(assistant) ${block.text}` } : block);
    } else content.push(...blocks);
  }
  if (content.length === 0) throw new McpPromptError('the server returned an empty prompt');
  return { role: 'user', content };
}

/**
 * The loop's `expandPrompt` seam over the servers' prompts now: a message whose only text is an
 * MCP-prompt command becomes the server's prompt; anything else comes back unchanged.
 */
export function expandMcpPrompt(prompts: () => readonly McpPrompt[]) {
  return async (message: MessageParam, signal: AbortSignal): Promise<MessageParam> => {
    const text = soleText(message);
    if (text === undefined || !text.trimStart().startsWith('/mcp__')) return message;
    const named = parsePromptCommand(text, prompts());
    if (!named) return message;
    const args = promptArguments(named.prompt, named.rest);
    let result: GetPromptResult;
    try {
      result = await named.prompt.get(args, signal);
    } catch (error) {
      throw new McpPromptError(`/${named.prompt.command}: the server ${named.prompt.server} refused: ${error instanceof Error ? error.message : String(error)}`);
    }
    return promptMessageOf(result);
  };
}

function soleText(message: MessageParam): string | undefined {
  if (typeof message.content === 'string') return message.content;
  const [only, ...others] = message.content;
  return only?.type === 'text' && others.length === 0 ? only.text : undefined;
}
