/**
 * The command's cache directory, the same the bin's launcher keeps its V8 code cache in
 * (scripts/cliLauncher.js): `$XDG_CACHE_HOME/rxagent`, else `~/.cache/rxagent`.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'rxagent');
}
