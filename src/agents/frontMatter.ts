/**
 * A deliberately tiny front-matter reader for `.rxagent/agents/*.md` files: only what agent files
 * need, no YAML dependency. Accepted between the `---` fences:
 *
 * - `key: value` (the value may be wrapped in matching single or double quotes);
 * - a key with an empty value followed by `- item` lines (a list);
 * - blank lines and `#` comment lines.
 *
 * Anything else is an error naming the line, so a typo never silently drops a setting.
 */

export type FrontMatterValue = string | readonly string[];

export interface ParsedFrontMatter {
  readonly fields: Readonly<Record<string, FrontMatterValue>>;
  /** Everything after the closing fence (the agent's system prompt), trimmed. */
  readonly body: string;
}

/** Thrown with the 1-based line number; the caller adds the file name. */
export class FrontMatterSyntaxError extends Error {
  override readonly name = 'FrontMatterSyntaxError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const FENCE = /^---\s*$/;
const KEY_VALUE = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:(.*)$/;
const LIST_ITEM = /^\s+-\s*(.*)$|^-\s+(.*)$/;

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) return v.slice(1, -1);
  return v;
}

/** Splits a Markdown agent definition into its front matter fields and its body. */
export function parseFrontMatter(text: string): ParsedFrontMatter {
  // A BOM or Windows line ends must not make the fence unrecognisable.
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) {
    throw new FrontMatterSyntaxError('the file must start with a `---` line opening the front matter', 1);
  }
  const fields: Record<string, FrontMatterValue> = {};
  let listKey: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) {
      return { fields, body: lines.slice(i + 1).join('\n').trim() };
    }
    const lineNo = i + 1;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const item = LIST_ITEM.exec(line);
    if (item) {
      if (listKey === undefined) throw new FrontMatterSyntaxError('a `- item` line must follow a `key:` line with no value', lineNo);
      const previous = fields[listKey];
      fields[listKey] = [...(Array.isArray(previous) ? previous : []), unquote(item[1] ?? item[2] ?? '')];
      continue;
    }
    const kv = KEY_VALUE.exec(line);
    if (!kv) throw new FrontMatterSyntaxError(`expected \`key: value\`, got ${JSON.stringify(line)}`, lineNo);
    const key = kv[1]!;
    if (key in fields) throw new FrontMatterSyntaxError(`\`${key}\` is given twice`, lineNo);
    const value = unquote(kv[2]!);
    if (value === '') {
      listKey = key;
      fields[key] = [];
    } else {
      listKey = undefined;
      fields[key] = value;
    }
  }
  throw new FrontMatterSyntaxError('the front matter is never closed by a `---` line', lines.length);
}
