/**
 * Control requests FROM the host, answered with a `control_response` of the same `request_id`:
 * `success` with the payload Claude Code answers, or `error` naming the problem. A subtype
 * rxagent does not implement gets an error response, never a crash; the session goes on.
 */
import { PERMISSION_MODES, type PermissionMode } from '../../permissions/modes.js';
import type { ControlRequestLine } from './inputLines.js';
import { flagSettingsChange, type FlagSettingsChange } from './flagSettings.js';

/** What the session lets control requests change or read. */
export interface SessionControls {
  /** The `initialize` answer (commands, agents, models, mode, pid, ...). */
  initializeResponse(): Record<string, unknown>;
  /** Ends the running turn as an interrupt; answers the uuids of user messages still queued. */
  interrupt(): string[];
  setPermissionMode(mode: PermissionMode): void;
  setModel(model: string | undefined): void;
  setMaxThinkingTokens(tokens: number | null): void;
  mcpStatus(): Array<Record<string, unknown>>;
  /** `get_context_usage`: how full the context window is. */
  contextUsage(): Record<string, unknown>;
  /** `get_usage`: the session's cost and usage totals. */
  usage(): Record<string, unknown>;
  /** `get_session_cost`: the `/cost` report. */
  sessionCost(): Record<string, unknown>;
  /** `mcp_set_servers`: replace the host's servers (raw SDK configs); answers `{ added, removed, errors }`. */
  mcpSetServers(servers: Record<string, unknown>): Promise<Record<string, unknown>>;
  mcpReconnect(serverName: string): Promise<void>;
  mcpToggle(serverName: string, enabled: boolean): Promise<void>;
  mcpReadResource(serverName: string, uri: string): Promise<Record<string, unknown>>;
  /** `read_file` (the SDK's `SDKControlReadFileResponse`). */
  readFile(request: { path: string; maxBytes?: number; encoding?: 'utf-8' | 'base64' }): Promise<Record<string, unknown>>;
  seedReadState(path: string, mtime: number): Promise<void>;
  /** `cancel_async_message`: drops a queued user message; false when it is not queued (already running or unknown). */
  cancelQueued(uuid: string): boolean;
  permissionRules(): Promise<Record<string, unknown>>;
  hooksListing(): Promise<Record<string, unknown>>;
  /** `rewind_files`: the SDK's `RewindFilesResult`. */
  rewindFiles(messageId: string, dryRun: boolean): Promise<Record<string, unknown>>;
  /** `get_settings`: each settings source as written and their merge (the SDK's `ResolvedSettings`). */
  settings(): Promise<Record<string, unknown>>;
  /** `mcp_message` from the host: its in-process server's own message; false when no such server is connected. */
  mcpServerMessage(serverName: string, message: Record<string, unknown>): boolean;
  /** `apply_flag_settings`, checked (`flagSettingsChange`): the model and the flag layer's rules. */
  applyFlagSettings(change: FlagSettingsChange): void;
}

export type ControlAnswer = { readonly ok: Record<string, unknown> } | { readonly error: string };

/** The control_response line for an answer. */
export function controlResponseLine(requestId: string, answer: ControlAnswer): Record<string, unknown> {
  return {
    type: 'control_response',
    response: 'ok' in answer
      ? { subtype: 'success', request_id: requestId, response: answer.ok }
      : { subtype: 'error', request_id: requestId, error: answer.error },
  };
}

/** Modes `set_permission_mode` may name beyond ours: Claude Code's `auto` asks like `default` here. */
function modeOf(value: unknown): PermissionMode | undefined {
  if (value === 'auto' || value === 'manual') return 'default';
  return typeof value === 'string' && (PERMISSION_MODES as readonly string[]).includes(value) ? (value as PermissionMode) : undefined;
}

/** An answer that needs the work done first (an MCP server connecting): a thrown error is the `error` answer. */
async function later(subtype: string, work: () => Promise<Record<string, unknown> | void>): Promise<ControlAnswer> {
  try {
    return { ok: (await work()) ?? {} };
  } catch (error) {
    return { error: `${subtype}: ${(error as Error).message}` };
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function answerControlRequest(line: ControlRequestLine, controls: SessionControls): ControlAnswer | Promise<ControlAnswer> {
  const request = line.request as Record<string, unknown> & { subtype: string };
  switch (request.subtype) {
    case 'initialize':
      return { ok: controls.initializeResponse() };
    case 'interrupt':
      return { ok: { still_queued: controls.interrupt() } };
    case 'set_permission_mode': {
      const mode = modeOf(request['mode']);
      if (!mode) return { error: `set_permission_mode: unknown mode ${JSON.stringify(request['mode'])} (known: ${PERMISSION_MODES.join(', ')})` };
      controls.setPermissionMode(mode);
      return { ok: { mode } };
    }
    case 'set_model': {
      const model = request['model'];
      if (model !== undefined && model !== null && typeof model !== 'string') return { error: 'set_model: model must be a string' };
      controls.setModel(typeof model === 'string' && model !== 'default' ? model : undefined);
      return { ok: {} };
    }
    case 'set_max_thinking_tokens': {
      const tokens = request['max_thinking_tokens'];
      if (tokens !== undefined && tokens !== null && (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0)) {
        return { error: 'set_max_thinking_tokens: max_thinking_tokens must be a whole number >= 0 or null' };
      }
      controls.setMaxThinkingTokens(typeof tokens === 'number' ? tokens : null);
      return { ok: {} };
    }
    case 'mcp_status':
      return { ok: { mcpServers: controls.mcpStatus() } };
    case 'get_context_usage':
      return { ok: controls.contextUsage() };
    case 'get_usage':
      return { ok: controls.usage() };
    case 'get_session_cost':
      return { ok: controls.sessionCost() };
    case 'mcp_set_servers': {
      const servers = request['servers'];
      if (!isRecord(servers)) return { error: 'mcp_set_servers: servers must be an object of server configurations by name' };
      return later('mcp_set_servers', () => controls.mcpSetServers(servers));
    }
    case 'mcp_reconnect': {
      const name = request['serverName'];
      if (typeof name !== 'string') return { error: 'mcp_reconnect: serverName must be a string' };
      return later('mcp_reconnect', () => controls.mcpReconnect(name));
    }
    case 'mcp_toggle': {
      const name = request['serverName'];
      const enabled = request['enabled'];
      if (typeof name !== 'string' || typeof enabled !== 'boolean') return { error: 'mcp_toggle: serverName must be a string and enabled a boolean' };
      return later('mcp_toggle', () => controls.mcpToggle(name, enabled));
    }
    case 'mcp_read_resource': {
      const name = request['serverName'];
      const uri = request['uri'];
      if (typeof name !== 'string' || typeof uri !== 'string') return { error: 'mcp_read_resource: serverName and uri must be strings' };
      return later('mcp_read_resource', () => controls.mcpReadResource(name, uri));
    }
    case 'apply_flag_settings': {
      const change = flagSettingsChange(request['settings']);
      if ('error' in change) return { error: `apply_flag_settings: ${change.error}` };
      controls.applyFlagSettings(change);
      return { ok: {} };
    }
    case 'list_permission_rules':
      return later('list_permission_rules', () => controls.permissionRules());
    case 'update_settings':
      return {
        error:
          'update_settings: not applicable to rxagent: the only keys Claude Code writes here (outputStyle to the local settings, effortLevel to the user settings) are settings rxagent does not read: it has one output style, and its effort comes from --effort',
      };
    case 'read_file': {
      const path = request['path'];
      const maxBytes = request['max_bytes'];
      const encoding = request['encoding'];
      if (typeof path !== 'string') return { error: 'read_file: path must be a string' };
      if (maxBytes !== undefined && (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes < 0)) return { error: 'read_file: max_bytes must be a whole number >= 0' };
      if (encoding !== undefined && encoding !== 'utf-8' && encoding !== 'base64') return { error: 'read_file: encoding must be utf-8 or base64' };
      return later('read_file', () => controls.readFile({ path, ...(maxBytes === undefined ? {} : { maxBytes }), ...(encoding === undefined ? {} : { encoding }) }));
    }
    case 'seed_read_state': {
      const path = request['path'];
      const mtime = request['mtime'];
      if (typeof path !== 'string' || typeof mtime !== 'number') return { error: 'seed_read_state: path must be a string and mtime a number' };
      return later('seed_read_state', () => controls.seedReadState(path, mtime));
    }
    case 'cancel_async_message': {
      const uuid = request['message_uuid'];
      if (typeof uuid !== 'string') return { error: 'cancel_async_message: message_uuid must be a string' };
      return { ok: { cancelled: controls.cancelQueued(uuid) } };
    }
    case 'stop_task':
    case 'get_task_output':
      return {
        error: `${request.subtype}: not applicable to rxagent: it runs no background shell or Monitor tasks and prints no task_started lines, so there is no task id to name (a background subagent reports through its Agent call)`,
      };
    case 'background_tasks':
      return { error: 'background_tasks: not applicable to rxagent: a running Bash or Agent call cannot be moved to the background; its batch waits for its result (start a subagent with run_in_background instead)' };
    case 'mcp_message': {
      const name = request['server_name'];
      const message = request['message'];
      if (typeof name !== 'string' || !isRecord(message)) return { error: 'mcp_message: server_name must be a string and message a JSON-RPC message' };
      return controls.mcpServerMessage(name, message) ? { ok: {} } : { error: `mcp_message: no in-process MCP server named ${JSON.stringify(name)} is connected` };
    }
    case 'mcp_call':
      return { error: 'mcp_call: not supported by rxagent: no SDK method sends it and sdk.d.ts gives its answer no type; an MCP tool runs in a turn' };
    case 'get_hooks_listing':
      return later('get_hooks_listing', () => controls.hooksListing());
    case 'get_settings':
      return later('get_settings', () => controls.settings());
    case 'list_models':
      // The catalogue a thin client would offer: the models this engine can be set to are any
      // the API accepts, so it lists the one it runs, as the initialize answer does.
      return { ok: { models: controls.initializeResponse()['models'] } };
    case 'set_has_subscribers': {
      const watched = request['has_subscribers'];
      if (watched !== null && typeof watched !== 'boolean') return { error: 'set_has_subscribers: has_subscribers must be a boolean or null' };
      // rxagent holds no stream lines back to join them, so whether anybody watches changes nothing (an empty success, as documented).
      return { ok: {} };
    }
    case 'rewind_files': {
      const id = request['user_message_id'];
      const dryRun = request['dry_run'];
      if (typeof id !== 'string' || (dryRun !== undefined && typeof dryRun !== 'boolean')) return { error: 'rewind_files: user_message_id must be a string and dry_run a boolean' };
      // A checkpoint that cannot be used is the typed canRewind: false answer, not an error: the program can show it.
      return later('rewind_files', () => controls.rewindFiles(id, dryRun === true));
    }
    case 'rename_session':
      return { error: 'rename_session: not supported by rxagent: its transcripts carry no session title' };
    case 'set_color':
      return { error: 'set_color: not applicable to rxagent: it draws no session accent colour (its interactive view has no per-session colour)' };
    case 'file_suggestions':
      return { error: 'file_suggestions: not applicable to rxagent: it has no @-mention autocomplete to share (prompts are sent as typed); list files with the Glob tool' };
    case 'register_repo_root':
      return { error: 'register_repo_root: not supported by rxagent: its working directories are fixed at start (--add-dir, the SDK\'s additionalDirectories)' };
    case 'reload_plugins':
      return { error: 'reload_plugins: not applicable to rxagent: it loads no plugins (--plugin-dir is accepted and ignored with a warning)' };
    case 'reload_skills':
      return { error: 'reload_skills: not applicable to rxagent: it has no skills (no Skill tool)' };
    case 'reload_output_styles':
      return { error: 'reload_output_styles: not applicable to rxagent: it has one output style, "default", and reads no output-style directories' };
    case 'request_user_dialog':
      return { error: 'request_user_dialog: goes from the engine to the host, and no rxagent tool renders a dialog, so rxagent neither sends nor answers it' };
    case 'get_binary_version':
      return { ok: { version: String(controls.initializeResponse()['claude_code_version'] ?? '') } };
    default:
      return { error: `rxagent does not support the control request ${JSON.stringify(request.subtype)}` };
  }
}
