/**
 * `--agent <name>`: the main thread runs as that agent, as in Claude Code: its prompt is the
 * system prompt (unless `--system-prompt` gives one), its `tools` list is what the model is
 * offered (within `--tools`), and its `model`, `maxTurns` and `permissionMode` apply unless the
 * command line sets them. Expressed as the options the run would have had with those flags, so the rest of
 * the run is built exactly as for flags.
 */
import { mergeAgentDefinitions, type AgentDefinition } from '../agents/definitions.js';
import { ConfigurationError } from '../errors.js';
import type { CliOptions } from './args.js';

export function pickMainAgent(definitions: readonly AgentDefinition[], name: string): AgentDefinition {
  const all = mergeAgentDefinitions(definitions);
  const found = all.get(name);
  if (!found) throw new ConfigurationError(`--agent ${name}: no such agent (known: ${[...all.keys()].join(', ')})`);
  return found;
}

export function asMainAgent(options: CliOptions, agent: AgentDefinition): CliOptions {
  const inherits = agent.model === undefined || agent.model === 'inherit';
  const tools = agent.tools === undefined ? options.tools : options.tools === undefined ? agent.tools : agent.tools.filter((t) => options.tools!.includes(t));
  return {
    ...options,
    ...(options.systemPrompt === undefined && options.systemPromptFile === undefined ? { systemPrompt: agent.prompt } : {}),
    ...(tools === undefined ? {} : { tools }),
    ...(!options.modelGiven && !inherits ? { model: agent.model!, modelGiven: true } : {}),
    ...(options.maxTurns === undefined && agent.maxTurns !== undefined ? { maxTurns: agent.maxTurns } : {}),
    ...(!options.permissionModeGiven && agent.permissionMode !== undefined ? { permissionMode: agent.permissionMode, permissionModeGiven: true } : {}),
  };
}
