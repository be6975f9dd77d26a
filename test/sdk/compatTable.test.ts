/**
 * docs/agent-sdk.md lists every option and control request of the installed SDK. This reads the
 * SDK's own files at run time (the `Options` keys and the `SDKControlRequestInner` subtypes from
 * sdk.d.ts, the requests its sdk.mjs answers for the engine and the ones it can send), so a new
 * SDK version that adds one fails here until the page says what rxagent does with it. Each
 * "works" / "SDK side" row must name a test file that exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const sdkDir = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/claude-agent-sdk'));
const dts = readFileSync(join(sdkDir, 'sdk.d.ts'), 'utf8');
const mjs = readFileSync(join(sdkDir, 'sdk.mjs'), 'utf8');
const page = readFileSync(join(ROOT, 'docs', 'agent-sdk.md'), 'utf8');

const STATUSES = ['works', 'SDK side', 'not applicable', 'not built'];

/** The top-level keys of `export declare type Options = { ... };` (4-space indented members). */
function optionKeys(): string[] {
  const start = dts.indexOf('export declare type Options = {');
  const end = dts.indexOf('\n};', start);
  expect(start).toBeGreaterThan(0);
  return [...dts.slice(start, end).matchAll(/^ {4}([A-Za-z_]\w*)\??:/gm)].map((m) => m[1]!);
}

/** The `subtype` literal of each member of `SDKControlRequestInner`. */
function innerSubtypes(): string[] {
  const union = /declare type SDKControlRequestInner = ([^;]+);/.exec(dts);
  expect(union).not.toBeNull();
  return union![1]!.split('|').map((name) => {
    const at = dts.search(new RegExp(`declare type ${name.trim()} = \\{`));
    expect(at, name).toBeGreaterThan(0);
    return /subtype: '([a-z_]+)'/.exec(dts.slice(at, at + 2000))![1]!;
  });
}

/** The requests the SDK answers when the engine sends them. */
const hostSubtypes = () => [...new Set([...mjs.matchAll(/request\.subtype==="([a-z_]+)"/g)].map((m) => m[1]!))];
/** The requests the SDK's Query methods send. */
const sentSubtypes = () => [...new Set([...mjs.matchAll(/request\(\{subtype:"([a-z_]+)"/g)].map((m) => m[1]!))];

interface Row {
  readonly name: string;
  readonly status: string;
  readonly cells: readonly string[];
}

/** The rows (first cell a `name`) of the section under the `## heading`. */
function rowsOf(heading: string): Row[] {
  const start = page.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const next = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, next < 0 ? undefined : next);
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const cells = l.split('|').slice(1, -1).map((c) => c.trim());
      return { name: cells[0]!.replace(/`/g, ''), status: cells[1]!, cells };
    });
}

test('every Options key of sdk.d.ts is in the table, once, with a status; works rows name an existing test', () => {
  const keys = optionKeys();
  expect(keys.length).toBeGreaterThan(50);
  const rows = rowsOf('Options');
  expect(rows.map((r) => r.name).sort()).toEqual([...keys].sort());
  for (const row of rows) {
    expect(STATUSES, row.name).toContain(row.status);
    expect(row.cells[2]!.length, `${row.name} says what rxagent does`).toBeGreaterThan(10);
    if (row.status === 'works' || row.status === 'SDK side') {
      const tests = row.cells[3]!.split(',').map((t) => t.trim()).filter((t) => t !== '');
      expect(tests.length, `${row.name} names its test`).toBeGreaterThan(0);
      for (const t of tests) expect(existsSync(join(ROOT, t)), `${row.name}: ${t}`).toBe(true);
    }
  }
});

test('every control request subtype of SDKControlRequestInner, every host-bound one and every one the SDK sends is listed', () => {
  const inner = innerSubtypes();
  expect(inner).toEqual(expect.arrayContaining(['initialize', 'interrupt', 'can_use_tool', 'rewind_files']));
  const toEngine = rowsOf('Control requests to the engine');
  const toHost = rowsOf('Control requests to the host');
  const undeclared = rowsOf('Requests the SDK can send that `sdk.d.ts` does not declare');
  expect(toEngine.map((r) => r.name).sort()).toEqual([...new Set(inner)].sort());
  expect(toHost.map((r) => r.name).sort()).toEqual(hostSubtypes().sort());
  const declared = new Set([...inner, ...hostSubtypes()]);
  expect(undeclared.map((r) => r.name).sort()).toEqual(sentSubtypes().filter((s) => !declared.has(s)).sort());
  for (const row of [...toEngine, ...toHost, ...undeclared]) {
    expect(STATUSES, row.name).toContain(row.status);
    if (row.status === 'works') {
      const tests = row.cells[3]!.split(',').map((t) => t.trim()).filter((t) => t !== '');
      expect(tests.length, `${row.name} names its test`).toBeGreaterThan(0);
      for (const t of tests) expect(existsSync(join(ROOT, t)), `${row.name}: ${t}`).toBe(true);
    }
  }
});
