/**
 * Our corrections to marked-terminal, through the real renderer: a fenced code block inside a
 * list item starts its own line (it was joined onto the item's line), and tables are laid out
 * with the view's own width measure (cli-table3's string-width 4 counts 🧑‍💻 as 5 columns and 🫠
 * as 1, so the borders broke). Colors aside: `stripAnsi` of what a terminal would show.
 */
import { describe, expect, test } from 'vitest';
import { stripAnsi, visibleWidth } from '../../../src/cli/interactive/layout.js';
import { loadMarkdownRenderer } from '../../../src/cli/interactive/markdown.js';
import { layoutTable } from '../../../src/cli/interactive/markdownTable.js';

const render = await loadMarkdownRenderer();
const plain = (markdown: string, columns = 80) => stripAnsi(render(markdown, columns));
const noStyle = { border: (t: string) => t, head: (t: string) => t };

describe('code blocks inside list items', () => {
  test('a tight item: the code block is on its own line, indented under the item', () => {
    expect(plain('- Run:\n  ```sh\n  npm test\n  ```\n- then commit')).toBe('  * Run:\n      npm test\n  * then commit');
  });

  test('an ordered tight item, and a blockquote after the text', () => {
    expect(plain('1. Build:\n   ```\n   npm run build\n   ```\n2. Note:\n   > careful')).toBe('  1. Build:\n       npm run build\n  2. Note:\n       careful');
  });

  test('a task item with code keeps one box', () => {
    expect(plain('- [ ] fix\n  ```\n  x()\n  ```')).toBe('  * [ ] fix\n      x()');
  });

  test('plain items and nested lists are unchanged', () => {
    expect(plain('- one\n- two\n  - nested')).toBe('  * one\n  * two\n    * nested');
  });
});

describe('tables', () => {
  test('wide characters line up: every row as wide as the border', () => {
    const shown = plain('| who | 名前 | n |\n|---|:-:|--:|\n| a | 中文字 | 1 |\n| 🧑‍💻x | `b` | 22 |\n| 🫠 | **bold** | 333 |');
    const rows = shown.split('\n');
    expect(rows).toEqual([
      '┌─────┬────────┬─────┐',
      '│ who │  名前  │   n │',
      '├─────┼────────┼─────┤',
      '│ a   │ 中文字 │   1 │',
      '├─────┼────────┼─────┤',
      '│ 🧑‍💻x │   b    │  22 │',
      '├─────┼────────┼─────┤',
      '│ 🫠  │  bold  │ 333 │',
      '└─────┴────────┴─────┘',
    ]);
    for (const row of rows) expect(visibleWidth(row)).toBe(visibleWidth(rows[0]!));
  });

  test('styled cells keep their style and their width', () => {
    const styled = layoutTable(['h'], [['\u001b[1mbold\u001b[22m']], [null], 80, noStyle);
    expect(styled).toContain('│ \u001b[1mbold\u001b[22m │');
    expect(visibleWidth(styled.split('\n')[3]!)).toBe(visibleWidth(styled.split('\n')[0]!));
  });

  test('a table wider than the terminal narrows its widest column and wraps its cells', () => {
    const long = 'word '.repeat(30).trim();
    const shown = layoutTable(['a', 'b'], [[long, 'short']], [null, null], 40, noStyle);
    const rows = shown.split('\n');
    for (const row of rows) expect(visibleWidth(row)).toBeLessThanOrEqual(40);
    for (const row of rows) expect(visibleWidth(row)).toBe(visibleWidth(rows[0]!));
    // Nothing lost: the cell's text is all there, across its rows.
    const cellText = rows.slice(3, -1).map((r) => r.split('│')[1]!.trim()).join('');
    expect(cellText.replace(/\s/g, '')).toBe(long.replace(/\s/g, ''));
  });

  test('rows with missing cells get empty ones', () => {
    const rows = layoutTable(['a', 'b', 'c'], [['1']], [null, null, null], 80, noStyle).split('\n');
    expect(rows[3]).toBe('│ 1 │   │   │');
  });
});
