/**
 * Agent definitions: who a subagent is (name, description, system prompt, model, tools,
 * maxTurns, permission mode). Three sources, one zod schema:
 *
 * - the library API (`defineAgent({...})`);
 * - a JSON string, as the CLI's `--agents <json>`: `{ "<name>": { description, prompt, tools?,
 *   model?, maxTurns?, permissionMode? } }` (the shape Claude Code accepts);
 * - `.rxagent/agents/*.md` files: front matter (`name`, `description`, `tools: a, b`, `model`,
 *   `maxTurns`, `permissionMode`) and the system prompt as the body.
 *
 * Unknown keys are ignored (agent files written for other tools carry e.g. `color`); every
 * error names where the definition came from.
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { ConfigurationError } from '../errors.js';
import { PERMISSION_MODES, type PermissionMode } from '../permissions/modes.js';
import { FrontMatterSyntaxError, parseFrontMatter } from './frontMatter.js';
import { lazySchema } from '../util/lazySchema.js';

export interface AgentDefinition {
  /** What the model passes as `subagent_type`. */
  readonly name: string;
  /** When to use this agent; shown to the model in the Agent tool's description. */
  readonly description: string;
  /** The subagent's system prompt. */
  readonly prompt: string;
  /** A model id, or 'inherit' / undefined for the parent's model. */
  readonly model?: string;
  /** Names of the parent's tools the subagent gets; undefined = all of them. */
  readonly tools?: readonly string[];
  readonly maxTurns?: number;
  readonly permissionMode?: PermissionMode;
  /** Where it came from ('built-in', 'api', '--agents', a file path), for messages. */
  readonly source?: string;
}

/** A definition that could not be read: `source` says which file or option. */
export class AgentDefinitionError extends ConfigurationError {
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`invalid agent definition in ${source}: ${detail}`);
  }
}

const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The fields of one definition, without its name (the JSON shape keys by name); built at the first definition checked (lazySchema says why). */
export const agentFieldsSchema = lazySchema(() => {
  const toolList = z.union([
    z.array(z.string().trim().min(1, 'a tool name must not be empty')),
    // `"Read, Grep"` is accepted as well as `["Read", "Grep"]`.
    z.string().transform((s) => s.split(',').map((t) => t.trim()).filter((t) => t !== '')),
  ]);
  return z.looseObject({
    description: z.string().trim().min(1, 'description must not be empty'),
    prompt: z.string().trim().min(1, 'prompt (the system prompt) must not be empty'),
    model: z.string().trim().min(1, 'model must not be empty (use "inherit" for the parent\'s model)').optional(),
    tools: toolList.optional(),
    maxTurns: z.number().int('maxTurns must be a whole number').positive('maxTurns must be at least 1').optional(),
    permissionMode: z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]]).optional(),
  });
});

export const agentNameSchema = lazySchema(() =>
  z.string().regex(AGENT_NAME, 'an agent name is 1-64 letters, digits, "_", "-" or "." and starts with a letter or digit'),
);

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      return `${path}${issue.message}`;
    })
    .join('; ');
}

function build(name: string, fields: unknown, source: string): AgentDefinition {
  const checkedName = agentNameSchema().safeParse(name);
  if (!checkedName.success) throw new AgentDefinitionError(source, `name ${JSON.stringify(name)}: ${describeIssues(checkedName.error)}`);
  const parsed = agentFieldsSchema().safeParse(fields);
  if (!parsed.success) throw new AgentDefinitionError(source, `agent ${JSON.stringify(name)}: ${describeIssues(parsed.error)}`);
  const f = parsed.data;
  return {
    name,
    description: f.description,
    prompt: f.prompt,
    ...(f.model !== undefined ? { model: f.model } : {}),
    ...(f.tools !== undefined ? { tools: f.tools } : {}),
    ...(f.maxTurns !== undefined ? { maxTurns: f.maxTurns } : {}),
    ...(f.permissionMode !== undefined ? { permissionMode: f.permissionMode } : {}),
    source,
  };
}

/** Validates a definition given through the library API. @throws AgentDefinitionError */
export function defineAgent(definition: Omit<AgentDefinition, 'source'> & { readonly source?: string }): AgentDefinition {
  const { name, source, ...fields } = definition;
  return build(name, fields, source ?? 'api');
}

/**
 * Parses the `--agents <json>` option: an object keyed by agent name.
 * @throws AgentDefinitionError naming `source` (default '--agents') and the agent.
 */
export function parseAgentsJson(json: string, source = '--agents'): AgentDefinition[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new AgentDefinitionError(source, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AgentDefinitionError(source, 'expected a JSON object keyed by agent name, e.g. {"reviewer": {"description": "...", "prompt": "..."}}');
  }
  return Object.entries(value).map(([name, fields]) => build(name, fields, source));
}

/** Front-matter strings converted to the schema's types (numbers stay strings when not numeric, so zod names them). */
function fieldsFromFrontMatter(fields: Readonly<Record<string, string | readonly string[]>>, body: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields, prompt: body };
  const maxTurns = fields['maxTurns'];
  if (typeof maxTurns === 'string') out['maxTurns'] = /^\d+$/.test(maxTurns) ? Number(maxTurns) : maxTurns;
  return out;
}

/**
 * Parses one agent file. The name is the front matter's `name`, else the file name without `.md`.
 * @throws AgentDefinitionError naming `file`.
 */
export function parseAgentMarkdown(text: string, file: string): AgentDefinition {
  let parsed;
  try {
    parsed = parseFrontMatter(text);
  } catch (error) {
    if (error instanceof FrontMatterSyntaxError) throw new AgentDefinitionError(file, error.message);
    throw error;
  }
  const declared = parsed.fields['name'];
  if (Array.isArray(declared)) throw new AgentDefinitionError(file, '`name` must be a single value');
  const name = typeof declared === 'string' ? declared : basename(file).replace(/\.md$/i, '');
  const { name: _name, ...rest } = parsed.fields;
  return build(name, fieldsFromFrontMatter(rest, parsed.body), file);
}

/**
 * Reads every `*.md` file of a directory (e.g. `<workspace>/.rxagent/agents`), in name order.
 * A missing directory is no agents.
 * @throws AgentDefinitionError for the first invalid file.
 */
export async function loadAgentDirectory(dir: string): Promise<AgentDefinition[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files = names.filter((n) => n.toLowerCase().endsWith('.md')).sort();
  const out: AgentDefinition[] = [];
  for (const name of files) {
    const path = join(dir, name);
    out.push(parseAgentMarkdown(await readFile(path, 'utf8'), path));
  }
  return out;
}

/** The agent every tree has unless a definition of the same name replaces it. Our own wording. */
export const GENERAL_PURPOSE_AGENT: AgentDefinition = {
  name: 'general-purpose',
  description:
    'A capable all-round agent for multi-step work: researching a question across many files, ' +
    'searching code, or carrying out a self-contained task. Use it when a search or task would ' +
    'take several rounds of tool calls you do not need to see.',
  prompt:
    'You are a subagent working on one task handed to you by another agent. Use the tools you ' +
    'have to do the task thoroughly, without asking questions back: nobody can answer them. ' +
    'When you are done, reply with a final message that reports what you found or did, with ' +
    'the concrete details (file paths, names, numbers) the other agent needs. That final ' +
    'message is the only thing it will see.',
  source: 'built-in',
};

/**
 * One name -> definition map: the built-in first, then each list in order, later ones
 * replacing earlier ones of the same name (e.g. built-in < files < --agents).
 */
export function mergeAgentDefinitions(...lists: readonly (readonly AgentDefinition[])[]): ReadonlyMap<string, AgentDefinition> {
  const map = new Map<string, AgentDefinition>([[GENERAL_PURPOSE_AGENT.name, GENERAL_PURPOSE_AGENT]]);
  for (const list of lists) for (const d of list) map.set(d.name, d);
  return map;
}
