/**
 * `rxagent serve`: the agent behind an HTTP API and a live page. Takes the usual run options
 * (model, tools, permission mode and rules, settings, session flags, ...); permission 'ask'
 * decisions become Allow/Deny questions on the page. One session is opened at start (the one
 * `--resume`/`--continue`/`--session-id` name, else a new one) so configuration errors show at
 * once and the page has a session to attach to; more are created through the API.
 *
 * SIGINT/SIGTERM stop the server cleanly: every running turn ends with its terminal, transcripts
 * are flushed, tools' processes are stopped; a second signal leaves at once.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseCliArgs, type CliOptions } from '../cli/args.js';
import { buildRun } from '../cli/buildRun.js';
import { ConfigurationError, RxAgentError } from '../errors.js';
import { createJsonlSessionStore } from '../session/jsonlSessionStore.js';
import { workspaceSlug } from '../session/paths.js';
import { isLoopbackHost, parseServeFlags } from './args.js';
import { newToken } from './auth.js';
import { DEFAULT_MAX_LOG_EVENTS } from './eventLog.js';
import { HttpError } from './http.js';
import { SessionHub, type OpenRun } from './hub.js';
import { startServeServer } from './server.js';

export const SERVE_HELP = `Usage: rxagent serve [--host 127.0.0.1] [--port <n>] [run options] [prompt]

Serves the agent at a local web page and an HTTP API (see the README). Prints the page's URL.
  --host <host>   address to listen on (default 127.0.0.1). Any other than loopback requires the
                  token printed in the URL on every request.
  --port <n>      port (default 0: any free port)
Run options are those of \`rxagent\` (--model, --tools, --permission-mode, --allowedTools,
--settings, --resume, ...). A prompt argument starts the first turn at once.
`;

export interface ServeIO {
  readonly writeOut: (text: string) => void;
  readonly writeErr: (text: string) => void;
}

export async function runServe(argv: readonly string[], io: ServeIO): Promise<number> {
  const flags = parseServeFlags(argv);
  const options: CliOptions = parseCliArgs(flags.rest);
  if (options.help) {
    io.writeOut(SERVE_HELP);
    return 0;
  }
  const cwd = resolve(process.cwd());
  const homeDir = homedir();
  let first = true;
  const openRun: OpenRun = async ({ resume, ask, onElicitation, onWarning }) => {
    // The command line's session flags choose the first session only; later ones are new or resumed by id.
    const isFirst = first;
    const sessionFlags = isFirst
      ? {}
      : { resume: undefined, continue: false, forkSession: false, sessionId: undefined };
    first = false;
    const runOptions: CliOptions = { ...options, ...sessionFlags, ...(resume === undefined ? {} : { resume, continue: false, forkSession: false, sessionId: undefined }) };
    try {
      return await buildRun(runOptions, { env: process.env, cwd, homeDir, platform: process.platform, interactive: true, interactiveView: true, ask, onElicitation, onWarning });
    } catch (error) {
      // A bad resume id or unreadable session is the request's fault, said as it is.
      if (!isFirst && error instanceof RxAgentError && (error.kind === 'configuration' || error.kind === 'session')) throw new HttpError(400, 'invalid_request', error.message);
      throw error;
    }
  };
  const hub = new SessionHub(openRun, { maxLogEvents: maxLogEventsFrom(process.env) });
  const initial = await hub.create();
  const store = createJsonlSessionStore({ workspace: cwd, dir: join(homeDir, '.rxagent', 'projects', workspaceSlug(cwd)) });
  const token = isLoopbackHost(flags.host) ? undefined : newToken();
  const server = await startServeServer({
    host: flags.host,
    port: flags.port,
    token,
    hub,
    listStored: async () => (await store.list()).map((s) => ({ sessionId: s.sessionId, modifiedAt: s.modifiedAt.toISOString() })),
    onError: (error) => io.writeErr(`rxagent serve: internal error: ${error instanceof Error ? error.message : String(error)}\n`),
  });
  io.writeOut(`rxagent serve: ${server.url}\n`);
  io.writeOut(`session ${initial.sessionId} (${initial.info().model} in ${cwd}); Ctrl-C stops the server.\n`);
  if (options.prompt !== undefined) initial.prompt(options.prompt);

  await new Promise<void>((resolveStopped) => {
    let signals = 0;
    const onSignal = () => {
      signals += 1;
      if (signals > 1) process.exit(130);
      io.writeOut('rxagent serve: stopping (ending running turns)...\n');
      server.close().then(() => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        resolveStopped();
      }, (error: unknown) => {
        io.writeErr(`rxagent serve: ${error instanceof Error ? error.message : String(error)}\n`);
        resolveStopped();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  io.writeOut('rxagent serve: stopped\n');
  return 0;
}

/** `RXAGENT_SERVE_MAX_EVENTS`: the per-session event log cap (see eventLog.ts); a bad value is a configuration error. */
function maxLogEventsFrom(env: NodeJS.ProcessEnv): number {
  const raw = env['RXAGENT_SERVE_MAX_EVENTS'];
  if (raw === undefined || raw === '') return DEFAULT_MAX_LOG_EVENTS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 2) throw new ConfigurationError(`RXAGENT_SERVE_MAX_EVENTS must be a whole number >= 2, got '${raw}'`);
  return n;
}
