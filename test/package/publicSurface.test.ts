/**
 * The public surface: the root stays small (the loop, runs, client, defineTool, errors, events,
 * protocol types), every sub-path in package.json `exports` points at a built file with its
 * types, and the reducers and internals are exported by no entry point.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportNamesOf } from './exportNames.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string }>;
  files: string[];
  peerDependencies: Record<string, string>;
  dependencies: Record<string, string>;
};

/** The source file each export's built `.d.ts` comes from. */
const sourceOf = (types: string) => path.join(root, types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'));
const entries = Object.fromEntries(Object.entries(pkg.exports).map(([subPath, target]) => [subPath, sourceOf(target.types)]));
const names = exportNamesOf(Object.values(entries));
const namesOf = (subPath: string) => names.get(entries[subPath]!) ?? [];

describe('public surface', () => {
  it('has the sub-paths the issue names, each with types and code', () => {
    expect(Object.keys(pkg.exports)).toEqual(
      expect.arrayContaining(['.', './operators', './tools', './context', './session', './permissions', './hooks', './mcp', './testing', './ui']),
    );
    for (const target of Object.values(pkg.exports)) {
      expect(existsSync(sourceOf(target.types)), target.types).toBe(true);
      expect(target.default.replace(/\.js$/, '.d.ts')).toBe(target.types);
    }
  });

  it('keeps the root at 60 names or fewer, with what a loop user needs', () => {
    const rootNames = namesOf('.');
    expect(rootNames.length).toBeLessThanOrEqual(60);
    expect(rootNames).toEqual(
      expect.arrayContaining([
        'agentLoop', 'createAgentRun', 'agentLoopWithSubagents', 'createAgentTreeRun', 'createMessagesClient', 'defineTool',
        'RxAgentError', 'ApiError', 'isTerminalEvent', 'LoopEvent', 'TerminalEvent',
        'MessagesRequest', 'MessageParam', 'AssistantMessage', 'StreamEvent', 'TextBlock', 'ToolUseBlock', 'ToolResultBlock', 'Submission',
      ]),
    );
  });

  it('exports no reducer or internal from any entry point', () => {
    const internal = ['applyEvent', 'assembleStep', 'createAssemblyState', 'stepScheduler', 'createSchedulerState', 'foldAttempt', 'finish', 'decideNoTools', 'runIteration', 'errorResult', 'applyToolResultBudget', 'editDistance'];
    for (const [subPath, file] of Object.entries(entries)) {
      const exported = names.get(file) ?? [];
      expect(exported.filter((n) => internal.includes(n)), subPath).toEqual([]);
    }
  });

  it('ships the built code only, with rxjs and zod as peers', () => {
    expect(pkg.files).toEqual(['dist/src', 'dist/operators']);
    expect(pkg.peerDependencies).toEqual({ rxjs: '^7.8.0', zod: '^4.0.0' });
    expect(pkg.dependencies).not.toHaveProperty('rxjs');
    expect(pkg.dependencies).not.toHaveProperty('zod');
    expect(existsSync(path.join(root, 'LICENSE'))).toBe(true);
  });
});
