/**
 * Custom slash commands, as Claude Code defines them: each `*.md` file in `~/.claude/commands/`
 * (user) and `<cwd>/.claude/commands/` (project; wins by name) is a command named after the file
 * (a subfolder adds a `folder:` prefix). Optional front matter gives `description` and
 * `argument-hint`. A prompt that starts with `/<name>` becomes the file's body, with
 * `$ARGUMENTS` replaced by the rest of the line and `$1`, `$2`, ... by its words. An unknown
 * `/word` is left as typed. Unreadable files are warnings naming the file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseFrontMatter } from '../agents/frontMatter.js';
import type { SettingSource } from './args.js';

export interface SlashCommand {
  readonly name: string;
  readonly description: string;
  readonly argumentHint: string;
  readonly body: string;
  readonly path: string;
}

const MAX_COMMAND_FILE_BYTES = 256 * 1024;

function filesUnder(dir: string, depth = 0): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.sort().flatMap((name) => {
    const path = join(dir, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      return [];
    }
    if (st.isDirectory()) return depth < 3 ? filesUnder(path, depth + 1) : [];
    return st.isFile() && name.toLowerCase().endsWith('.md') ? [path] : [];
  });
}

function single(value: string | readonly string[] | undefined): string {
  return value === undefined ? '' : typeof value === 'string' ? value : value.join(', ');
}

export function loadSlashCommands(options: { cwd: string; homeDir: string; sources?: readonly SettingSource[] }): { commands: SlashCommand[]; warnings: string[] } {
  const sources = new Set(options.sources ?? ['user', 'project', 'local']);
  const dirs = [
    ...(sources.has('user') ? [join(options.homeDir, '.claude', 'commands')] : []),
    ...(sources.has('project') ? [join(options.cwd, '.claude', 'commands')] : []),
  ];
  const byName = new Map<string, SlashCommand>();
  const warnings: string[] = [];
  for (const dir of dirs) {
    for (const path of filesUnder(dir)) {
      const name = relative(dir, path).replace(/\.md$/i, '').split(/[\\/]/).join(':');
      try {
        if (statSync(path).size > MAX_COMMAND_FILE_BYTES) throw new Error(`larger than ${MAX_COMMAND_FILE_BYTES} bytes`);
        const parsed = parseFrontMatter(readFileSync(path, 'utf8'));
        byName.set(name, {
          name,
          description: single(parsed.fields['description']),
          argumentHint: single(parsed.fields['argument-hint']),
          body: parsed.body,
          path,
        });
      } catch (error) {
        warnings.push(`${path}: ${(error as Error).message}; command /${name} ignored`);
      }
    }
  }
  return { commands: [...byName.values()], warnings };
}

/** The prompt with a leading `/<command> args` expanded, or unchanged. */
export function expandSlashCommand(prompt: string, commands: readonly SlashCommand[]): string {
  const match = /^\/([\w:.-]+)(?:[ \t]+([\s\S]*))?$/.exec(prompt.trim());
  if (!match) return prompt;
  const command = commands.find((c) => c.name === match[1]);
  if (!command) return prompt;
  const args = (match[2] ?? '').trim();
  const words = args === '' ? [] : args.split(/\s+/);
  const body = command.body.replace(/\$ARGUMENTS/g, args).replace(/\$(\d+)/g, (_m, n: string) => words[Number(n) - 1] ?? '');
  // Claude Code appends the arguments when the file has no placeholder for them.
  return args !== '' && !/\$ARGUMENTS|\$\d/.test(command.body) ? `${body}\n\nARGUMENTS: ${args}` : body;
}
