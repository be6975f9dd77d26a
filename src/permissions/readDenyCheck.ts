/**
 * Read rules applied file by file inside Glob's and Grep's walks. The permission policy judges a
 * call by its `path` argument, which for a walk is a directory: `Grep(pattern: "key", path: ".")`
 * passes `Read(secrets/**)` and would then print those files. The walk asks this check about each
 * file it would list or search, and leaves out every file a deny rule covers (and an ask rule:
 * nobody can be asked about each file mid-walk, so it is left out too).
 *
 * Rules may change during a run ("don't ask again"), so they are read through a getter; the
 * compiled patterns are cached until the rule list changes, since a walk checks thousands of paths.
 */
import { homedir } from 'node:os';
import { resolve, sep } from 'node:path';
import { realOrNearest } from '../tools/builtin/bashPaths.js';
import { globToRegExp, type GlobPattern } from '../tools/builtin/globMatch.js';
import { absoluteRulePattern, ruleCoversTool } from './matchRule.js';
import { parseRule, type PermissionRule } from './rules.js';

/** Whether `toolName` must leave out the file reached at `path` (and really at `real`, for a link). */
export type ReadDenyCheck = (toolName: string, path: string, real?: string) => boolean;

export interface ReadDenyCheckOptions {
  /** The deny and ask rules in force now (rule strings or parsed), read at every walk. */
  readonly rules: () => ReadonlyArray<string | PermissionRule>;
  readonly cwd: string;
  readonly homeDir?: string;
}

/** Builds the per-file check the workspace hands to Glob and Grep. */
export function createReadDenyCheck(options: ReadDenyCheckOptions): ReadDenyCheck {
  const home = options.homeDir ?? homedir();
  const bases = [...new Set([options.cwd, realOrNearest(resolve(options.cwd))])];
  let cachedKey: string | undefined;
  let compiled: Array<{ rule: PermissionRule; patterns: GlobPattern[] }> = [];

  const current = () => {
    const rules = options.rules().map((r) => (typeof r === 'string' ? parseRule(r) : r));
    const key = rules.map((r) => r.text).join('\n');
    if (key !== cachedKey) {
      cachedKey = key;
      compiled = rules
        .filter((rule) => rule.content !== undefined && rule.content !== '*')
        .map((rule) => ({ rule, patterns: bases.map((base) => globToRegExp(absoluteRulePattern(rule.content!, base, home))) }));
    }
    return compiled;
  };

  return (toolName, path, real) => {
    const targets = real === undefined || real === path ? [path] : [path, real];
    return current().some(
      ({ rule, patterns }) =>
        ruleCoversTool(rule, toolName) && patterns.some((re) => targets.some((t) => re.test(t.split(sep).join('/')))),
    );
  };
}
