/**
 * `npm start`: a real agent session with no API key and no network. The bundled project (a
 * failing node:test test) is copied into a fresh temporary folder, the scripted model server
 * plays the model's side, and the REAL `rxagent` command runs against it as a child process
 * with the real tools and its own live view. Afterwards the project's tests are run here, and
 * the exit status is 0 only when they pass and the command succeeded.
 *
 * The child runs with `--permission-mode acceptEdits --allowedTools "Bash(node --test)"`: file
 * edits inside the workspace are allowed, and the one shell command the demo needs is allowed by
 * an explicit rule, so it also shows the permission rules at work (bypassPermissions would hide
 * them).
 *
 * With ANTHROPIC_API_KEY set and a prompt argument (`npm start -- "<prompt>"`), the same view
 * runs against the real API in the current directory instead.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedServer } from '../testing/scriptedServer.js';
import { DEMO_FILES, DEMO_PROMPT } from './project.js';
import { createDemoScript } from './script.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'main.js');
const say = (text: string) => process.stdout.write(`${text}\n`);

interface ChildRun {
  readonly code: number;
  readonly output: string;
}

/** Runs a child with our stdout/stderr (so the view stays live and keeps its colors on a TTY). */
function runChild(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, capture = false, stdin: 'ignore' | 'inherit' = 'ignore'): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: [stdin, capture ? 'pipe' : 'inherit', capture ? 'pipe' : 'inherit'] });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    // Forward an interrupt so the command can end its turn cleanly.
    const forward = () => child.kill('SIGINT');
    process.on('SIGINT', forward);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      resolve({ code: code ?? (signal ? 1 : 0), output });
    });
  });
}

async function scriptedDemo(): Promise<number> {
  const root = mkdtempSync(join(tmpdir(), 'rxagent-demo-'));
  const workspace = join(root, 'project');
  const home = join(root, 'home');
  for (const [rel, text] of Object.entries(DEMO_FILES)) {
    mkdirSync(dirname(join(workspace, rel)), { recursive: true });
    writeFileSync(join(workspace, rel), text);
  }
  mkdirSync(home, { recursive: true });
  const server = await startScriptedServer({ script: createDemoScript(workspace) });
  try {
    say('rxagent demo: the MODEL IS SCRIPTED (a local server plays its side; no API key, no network).');
    say('Everything else is real: the rxagent command, its HTTP client, the tools, the permission rules.');
    say(`Workspace: ${workspace}`);
    say(`Prompt: ${DEMO_PROMPT}`);
    say('');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ANTHROPIC_BASE_URL: server.baseURL,
      ANTHROPIC_API_KEY: 'scripted-demo-key',
      // Sessions and settings of the demo stay in its temporary folder.
      HOME: home,
      USERPROFILE: home,
    };
    const args = [MAIN, DEMO_PROMPT, '--permission-mode', 'acceptEdits', '--allowedTools', 'Bash(node --test)'];
    const agent = await runChild(process.execPath, args, workspace, env);
    say('');
    say('Checking the result: running `node --test` in the workspace...');
    const tests = await runChild(process.execPath, ['--test'], workspace, { ...process.env, NODE_TEST_CONTEXT: undefined }, true);
    const summary = tests.output.split('\n').filter((l) => /^[#ℹ] (tests|pass|fail)\b/.test(l));
    summary.forEach((l) => say(`  ${l}`));
    if (agent.code !== 0) {
      say(`The rxagent command exited with status ${agent.code}: the demo FAILED.`);
      return 1;
    }
    if (tests.code !== 0) {
      say('The tests still fail after the run: the demo FAILED.');
      return 1;
    }
    say(`Demo passed: the agent fixed the bug and the tests pass (${server.requests.length} scripted model requests).`);
    say(`Workspace kept at ${workspace}`);
    return 0;
  } finally {
    await server.close();
    // The project stays for the curious; the demo's session files are not worth keeping.
    rmSync(home, { recursive: true, force: true });
  }
}

async function realRun(prompt: string): Promise<number> {
  say(`rxagent against the real API in ${process.cwd()}`);
  // stdin is shared: on a terminal the command can ask for permissions and take further prompts.
  const result = await runChild(process.execPath, [MAIN, prompt], process.cwd(), process.env, false, 'inherit');
  return result.code;
}

async function start(argv: readonly string[]): Promise<number> {
  const prompt = argv.join(' ').trim();
  if (process.env['ANTHROPIC_API_KEY'] && prompt !== '') return realRun(prompt);
  if (prompt !== '') say('(a prompt was given but ANTHROPIC_API_KEY is not set: running the scripted demo instead)');
  return scriptedDemo();
}

start(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`rxagent demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
