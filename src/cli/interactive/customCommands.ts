/**
 * Custom slash commands: Markdown files in the workspace's `.claude/commands/` (Claude Code's
 * place) and `.rxagent/commands/` (ours, which wins on a name clash). `/name args` sends the
 * file's body to the model with `$ARGUMENTS` replaced by the arguments (and `$1`..`$9` by the
 * words); a body that never mentions them gets the arguments appended, so they are not lost.
 * An optional front matter block (`---` lines) may hold `description:` for /help and Tab.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface CustomCommand {
  readonly name: string;
  readonly description: string;
  readonly body: string;
  /** The file it came from, for /help. */
  readonly file: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** A command file is a prompt; anything bigger is not one (and must not freeze the prompt). */
const MAX_COMMAND_FILE_BYTES = 256 * 1024;

/** Splits an optional `---` front matter block from the body; only `description` is read. */
export function parseCommandFile(text: string): { description: string; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!match) return { description: '', body: text.trim() };
  const description = /^description:\s*(.*)$/m.exec(match[1]!)?.[1]?.trim().replace(/^(["'])(.*)\1$/, '$2') ?? '';
  return { description, body: text.slice(match[0].length).trim() };
}

function loadDirectory(dir: string, warnings: string[]): CustomCommand[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const commands: CustomCommand[] = [];
  for (const entry of names.sort()) {
    if (!entry.endsWith('.md')) continue;
    const name = basename(entry, '.md');
    const file = join(dir, entry);
    if (!NAME.test(name)) {
      warnings.push(`${file}: a command name may hold letters, digits, '_', '.', '-' only; skipped`);
      continue;
    }
    try {
      const st = statSync(file);
      if (!st.isFile() || st.size > MAX_COMMAND_FILE_BYTES) {
        warnings.push(`${file}: not a regular file under ${MAX_COMMAND_FILE_BYTES} bytes; skipped`);
        continue;
      }
      commands.push({ name, file, ...parseCommandFile(readFileSync(file, 'utf8')) });
    } catch (error) {
      warnings.push(`${file}: ${(error as Error).message}`);
    }
  }
  return commands;
}

/** The workspace's custom commands by name (`.rxagent/commands` over `.claude/commands`). */
export function loadCustomCommands(cwd: string): { commands: Map<string, CustomCommand>; warnings: string[] } {
  const warnings: string[] = [];
  const commands = new Map<string, CustomCommand>();
  for (const dir of [join(cwd, '.claude', 'commands'), join(cwd, '.rxagent', 'commands')]) {
    for (const command of loadDirectory(dir, warnings)) commands.set(command.name, command);
  }
  return { commands, warnings };
}

/** The prompt a custom command sends for these arguments. */
export function expandCustomCommand(command: CustomCommand, args: string): string {
  const words = args.split(/\s+/).filter((w) => w !== '');
  let used = false;
  const body = command.body
    .replace(/\$ARGUMENTS/g, () => {
      used = true;
      return args;
    })
    .replace(/\$([1-9])/g, (_, n: string) => {
      used = true;
      return words[Number(n) - 1] ?? '';
    });
  return used || args === '' ? body : `${body}\n\nARGUMENTS: ${args}`;
}
