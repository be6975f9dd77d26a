/**
 * The built-in tools of one session, closing over its workspace (roots + read tracker).
 *
 * ## Example
 * ```ts
 * const workspace = createWorkspace({ cwd: process.cwd(), roots: ['../shared'] });
 * const tools = createBuiltinTools(workspace);
 * ```
 */
import { createSandbox } from '../../sandbox/createSandbox.js';
import { defineTool } from '../defineTool.js';
import type { Tool } from '../types.js';
import { bashTool, type BashToolOptions } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readTool } from './read.js';
import type { Workspace } from './workspace.js';
import { writeTool } from './write.js';

/** The names of the built-in tools, as the model and permission rules see them. */
export type BuiltinToolName = 'Read' | 'Write' | 'Edit' | 'Glob' | 'Grep' | 'Bash';

/** Every built-in tool name, in the order they are offered to the model. */
export const BUILTIN_TOOL_NAMES: readonly BuiltinToolName[] = ['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash'];

/** Options of {@link createBuiltinTools}. */
export interface BuiltinToolsOptions {
  /** Only these tools (default: all six). */
  readonly only?: readonly BuiltinToolName[];
  readonly bash?: BashToolOptions;
  readonly globMaxResults?: number;
}

/** The built-in tools (Read, Write, Edit, Glob, Grep, Bash) of one session, over its workspace. */
export function createBuiltinTools(workspace: Workspace, options: BuiltinToolsOptions = {}): Tool[] {
  const wanted = new Set(options.only ?? BUILTIN_TOOL_NAMES);
  // The shell parser (1.5 MB of compiled Go, 150-350 ms to load) is not loaded here: a run that
  // never calls Bash should not pay for it before its first request (issue 20 §3). The first Bash
  // call's permission check loads it, while the model is usually still streaming.
  // Sandboxed by default on Linux (where bwrap works); the CLI passes the run's own sandbox.
  const bash: BashToolOptions = options.bash?.sandbox
    ? options.bash
    : { ...options.bash, sandbox: createSandbox({ platform: process.platform, roots: workspace.roots }) };
  const all: Tool[] = [
    defineTool(readTool(workspace)),
    defineTool(writeTool(workspace)),
    defineTool(editTool(workspace)),
    defineTool(globTool(workspace, options.globMaxResults === undefined ? {} : { maxResults: options.globMaxResults })),
    defineTool(grepTool(workspace)),
    defineTool(bashTool(workspace, bash)),
  ];
  return all.filter((tool) => wanted.has(tool.name as BuiltinToolName));
}
