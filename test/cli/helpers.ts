/**
 * Runs the BUILT `rxagent` command as a child process against the scripted model server.
 * The tests rely on `dist/` being current: `npm ci` builds it (`prepare`), and `npm test` runs
 * after; when working on the sources, run `npm run build` first.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { Script } from '../../src/testing/script.js';
import { outputLineSchema, type OutputLine } from '../../src/cli/outputSchemas.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The launcher as an ES module, for `node dist/src/cli/main.js` (the Claude Agent SDK spawns it so). */
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
/** The same launcher as CommonJS: the bin package.json names (scripts/bundleCli.mjs makes both). */
export const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.cjs');
/** Both launchers, for tests of what each must do alike. */
export const LAUNCHERS = [
  { name: 'main.js', path: CLI },
  { name: 'main.cjs', path: BIN },
] as const;

export function assertBuilt(): void {
  for (const file of [CLI, BIN]) if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` before these tests`);
}

const sandboxes: string[] = [];

/** Removes every sandbox made so far (call in afterAll). */
export function removeSandboxes(): void {
  for (const root of sandboxes.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** A workspace and a HOME of its own (sessions and user settings stay inside). */
export function makeSandbox(files: Readonly<Record<string, string>> = {}): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'rxagent-cli-'));
  sandboxes.push(root);
  const cwd = join(root, 'work');
  const home = join(root, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, rel)), { recursive: true });
    writeFileSync(join(cwd, rel), text);
  }
  return { cwd, home };
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd: string;
  readonly home: string;
  readonly baseURL?: string;
  readonly stdin?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** A started command: its process, what it printed so far, and its end. */
export interface StartedCli {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  readonly done: Promise<CliRun>;
}

/**
 * Starts the built command. stdin gets `options.stdin` and is closed (a `-p` run with an open
 * piped stdin would wait for it), unless `openStdin` leaves it to the test.
 */
export function startCli(args: readonly string[], options: RunOptions & { readonly openStdin?: boolean }): StartedCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: options.home,
      ANTHROPIC_API_KEY: 'test-key',
      ...(options.baseURL ? { ANTHROPIC_BASE_URL: options.baseURL } : {}),
      ...options.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliRun>((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
  if (!options.openStdin) child.stdin.end(options.stdin ?? '');
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export function runCli(args: readonly string[], options: RunOptions): Promise<CliRun> {
  return startCli(args, options).done;
}

/** Starts a server for `script`, runs the command against it, and closes the server. */
export async function runAgainst(
  script: Script,
  args: readonly string[],
  options: Omit<RunOptions, 'baseURL'>,
): Promise<CliRun & { server: ScriptedServer }> {
  const server = await startScriptedServer({ script });
  try {
    const run = await runCli(args, { ...options, baseURL: server.baseURL });
    return { ...run, server };
  } finally {
    await server.close();
  }
}

/** Parses stream-json output: every line must be one JSON object valid against the schemas. */
export function parseLines(stdout: string): OutputLine[] {
  const lines = stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, i) => {
    const parsed = outputLineSchema.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`line ${i + 1} does not match the schemas: ${parsed.error.message}\n${line}`);
    return parsed.data;
  });
}
