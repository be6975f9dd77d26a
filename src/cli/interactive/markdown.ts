/**
 * The model's Markdown rendered for a terminal (headings, emphasis, lists, tables, code blocks
 * with syntax highlighting) by `marked` with `marked-terminal`: a well-kept parser and renderer
 * pair, where a hand-written one would get nesting, tables and highlighting wrong. Used only when
 * stdout is a terminal; piped output keeps the model's text as it came.
 *
 * Streaming: text is rendered one Markdown block at a time, as soon as the block is complete (a
 * blank line outside a code fence), so the answer appears while it streams; the unfinished
 * block is shown raw in the live area until it completes.
 */
import { styleText } from 'node:util';
import type { Marked as MarkedParser, MarkedExtension, Tokens } from 'marked';
import { layoutTable } from './markdownTable.js';

export type RenderMarkdown = (markdown: string, columns: number) => string;

/**
 * Tables drawn by our layout (markdownTable.ts: cells measured like the rest of the view, not by
 * cli-table3's older string-width), `width` columns at most.
 */
const tablesFor = (width: number): MarkedExtension => ({
  renderer: {
    table(token: Tokens.Table) {
      const cell = (c: Tokens.TableCell) => this.parser.parseInline(c.tokens);
      const style = { border: (t: string) => styleText('gray', t), head: (t: string) => styleText('red', t) };
      return `${layoutTable(token.header.map(cell), token.rows.map((r) => r.map(cell)), token.align, width, style)}\n\n`;
    },
  },
});

/**
 * Our corrections to marked-terminal 7.3 under marked 18 (it was written for marked's older
 * token shapes), applied after it so they are asked first:
 * - A tight list item's text is a block `text` token carrying inline tokens (code spans, bold,
 *   links); marked-terminal's `text` prints its raw source (`` `a.ts` ``, `**b**`). Rendered from
 *   its inline tokens here; any other text (`false`) is left to marked-terminal.
 * - A block after a tight item's text (a fenced code block) starts a line of its own; it was
 *   joined onto the item's line.
 * - A task item's checkbox was drawn twice: marked now gives the item a checkbox token of its own,
 *   and marked-terminal also draws one for any item marked `task`. The flag is cleared before
 *   rendering, so the token's box is the one drawn, loose or tight.
 */
const LIST_ITEM_FIXES: MarkedExtension = {
  walkTokens(token) {
    if (token.type !== 'list_item') return;
    token.task = false;
    // A tight item's text is printed without a line end, so a block after it (a fenced code
    // block: `- Run:` then the fence) was joined onto the item's line. Such text ends its line.
    (token.tokens ?? []).forEach((child, i, children) => {
      const next = children[i + 1];
      if (child.type === 'text' && next !== undefined && BLOCKS_AFTER_TEXT.has(next.type)) (child as { endsLine?: boolean }).endsLine = true;
    });
  },
  renderer: {
    text(token) {
      if (!('tokens' in token) || token.tokens === undefined || token.tokens.length === 0) return false;
      const inline = this.parser.parseInline(token.tokens);
      return (token as { endsLine?: boolean }).endsLine === true ? `${inline}\n` : inline;
    },
  },
};
/** Blocks that must start on a line of their own inside a tight list item (a nested list handles itself). */
const BLOCKS_AFTER_TEXT: ReadonlySet<string> = new Set(['code', 'blockquote', 'table', 'heading', 'hr', 'html']);

/**
 * Renders one piece of Markdown for a terminal `columns` wide. The libraries (with the syntax
 * highlighter, the bulk of them) are loaded here, on a terminal only: loading them at every start
 * doubled the start-up time of `rxagent -p`, which never renders Markdown.
 */
export async function loadMarkdownRenderer(): Promise<RenderMarkdown> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([import('marked'), import('marked-terminal')]);
  const cache = new Map<number, MarkedParser>();
  const parserFor = (columns: number): MarkedParser => {
    let parser = cache.get(columns);
    if (!parser) {
      // The typings of marked-terminal describe a Renderer; at run time it returns an extension.
      const width = Math.max(20, columns - 2);
      const extension = markedTerminal({ width, reflowText: true, showSectionPrefix: false, tab: 2 }) as unknown as MarkedExtension;
      parser = new Marked(extension, LIST_ITEM_FIXES, tablesFor(width));
      cache.set(columns, parser);
    }
    return parser;
  };
  return (markdown, columns) => {
    try {
      return (parserFor(columns).parse(markdown, { async: false }) as string).replace(/\n+$/, '');
    } catch {
      // Rendering is cosmetic: never lose the model's text over it.
      return markdown.replace(/\n+$/, '');
    }
  };
}

export interface MarkdownStream {
  /** Adds streamed text; returns the rendered blocks it completed ('' when none). */
  push(text: string): string;
  /** The end of the text block: renders whatever is left. */
  flush(): string;
  /** The unfinished block, raw, for the live area. */
  pending(): string;
}

/** Where the text may be cut into separately rendered blocks: after a blank line outside a fence. */
function lastBlockEnd(text: string): number {
  let inFence = false;
  let cut = -1;
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    if (newline === -1) break;
    const line = text.slice(lineStart, newline);
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === '' && lineStart > 0) cut = newline + 1;
    lineStart = newline + 1;
  }
  return cut;
}

export function createMarkdownStream(render: RenderMarkdown, columns: () => number): MarkdownStream {
  let buffer = '';
  return {
    push(text) {
      buffer += text;
      const cut = lastBlockEnd(buffer);
      if (cut === -1) return '';
      const complete = buffer.slice(0, cut);
      buffer = buffer.slice(cut);
      return complete.trim() === '' ? '' : `${render(complete, columns())}\n\n`;
    },
    flush() {
      const rest = buffer;
      buffer = '';
      return rest.trim() === '' ? '' : `${render(rest, columns())}\n`;
    },
    pending: () => buffer,
  };
}
