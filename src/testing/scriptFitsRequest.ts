/**
 * Whether a scripted reply is one the real API could give to the request it answers, as far as
 * server tools go. The API runs its own tools (web search, web fetch, code execution, tool search,
 * the advisor) only when the request offers them, and a result block always answers a call the
 * same turn made. A script that breaks either rule would teach a client to handle a reply that
 * never comes from production, so the scripted server refuses to play it (the test sees why)
 * rather than play it silently.
 */
import { SERVER_TOOL_RESULT_TYPES } from '../protocol/serverBlocks.js';
import type { MessagesRequest } from '../protocol/request.js';
import { SERVER_TOOL_NAMES } from './apiRequestSchema.js';
import { defaultServerToolUseId } from './encodeScript.js';
import type { ScriptedMessage } from './script.js';

/**
 * The `server_tool_use` names a tool type can produce: none for the Anthropic-defined tools the
 * client runs (bash, computer, memory, text editor: they stream tool_use), two sub-tools for code
 * execution, and undefined for a type whose calls this check does not know (a toolset).
 */
function callNamesOf(type: string): readonly string[] | undefined {
  const name = SERVER_TOOL_NAMES[type];
  if (name === undefined) return undefined;
  if (name === 'code_execution') return ['code_execution', 'bash_code_execution', 'text_editor_code_execution'];
  return /^(web_search|web_fetch|advisor|tool_search_tool_(bm25|regex))$/.test(name) ? [name] : [];
}

/**
 * The server tool names the request offers, or undefined when it offers a tool type this check
 * does not know (an MCP toolset, a newer type): then any name is accepted, never stricter than the API.
 */
function offeredServerTools(request: MessagesRequest): ReadonlySet<string> | undefined {
  const names = new Set<string>();
  for (const tool of (request.tools ?? []) as readonly { readonly type?: unknown }[]) {
    if (typeof tool.type !== 'string' || tool.type === 'custom') continue;
    const calls = Object.hasOwn(SERVER_TOOL_NAMES, tool.type) ? callNamesOf(tool.type) : undefined;
    if (calls === undefined) return undefined;
    for (const name of calls) names.add(name);
  }
  return names;
}

/** Ids of server calls in the request's last assistant message: a paused turn's result may follow in its continuation. */
function pausedCallIds(request: MessagesRequest): Set<string> {
  const last = request.messages[request.messages.length - 1];
  const assistant = last?.role === 'assistant' ? last : undefined;
  const ids = new Set<string>();
  if (assistant === undefined || typeof assistant.content === 'string') return ids;
  for (const block of assistant.content as readonly { readonly type: string; readonly id?: unknown }[]) {
    if (block.type === 'server_tool_use' && typeof block.id === 'string') ids.add(block.id);
  }
  return ids;
}

const RESULT_TYPES: ReadonlySet<string> = new Set(SERVER_TOOL_RESULT_TYPES);

/**
 * The ways `msg` could not be the API's reply to `request` (empty when it could). `responseIndex`
 * names the default ids the encoder gives calls scripted without one.
 */
export function scriptMisfits(request: MessagesRequest, msg: ScriptedMessage, responseIndex: number): string[] {
  const misfits: string[] = [];
  const offered = offeredServerTools(request);
  const calls = pausedCallIds(request);
  const prefilled = (msg.prefilled ?? []) as readonly { readonly type?: unknown; readonly id?: unknown; readonly name?: unknown; readonly tool_use_id?: unknown }[];
  const blocks = [
    ...prefilled.map((block) => ({ type: String(block.type), id: block.id, name: block.name, toolUseId: block.tool_use_id })),
    ...msg.blocks.map((block, i) => {
      if (block.type === 'server_tool_use') {
        return { type: block.type, id: block.id ?? defaultServerToolUseId(responseIndex, prefilled.length + i), name: block.name, toolUseId: undefined };
      }
      if (block.type === 'server_block') {
        return { type: String(block.block['type']), id: block.block['id'], name: block.block['name'], toolUseId: block.block['tool_use_id'] };
      }
      return { type: block.type, id: undefined, name: undefined, toolUseId: undefined };
    }),
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'server_tool_use') {
      if (offered !== undefined && !offered.has(String(block.name))) {
        const list = offered.size === 0 ? 'none' : [...offered].join(', ');
        misfits.push(`block ${index} calls the server tool ${JSON.stringify(block.name)}, which the request does not offer (it offers: ${list})`);
      }
      if (typeof block.id === 'string') calls.add(block.id);
    } else if (RESULT_TYPES.has(block.type) && !calls.has(String(block.toolUseId))) {
      misfits.push(`block ${index} (${block.type}) answers ${JSON.stringify(block.toolUseId)}, which no server_tool_use before it made`);
    }
  });
  return misfits;
}
