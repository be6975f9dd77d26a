/**
 * The scripted model server in its own process, for benchmarks of the client side: in the same
 * process its JSON parsing and SSE writing would be charged to the client being measured and
 * compete with it for the event loop (which hid most of the event-loop lag under load).
 *
 * `node dist/bench/scriptedServerMain.js <script>[=arg] [validate] [stamps]` where `<script>` is one of `SCRIPTS`: each
 * request gets the reply for its turn (the assistant messages already in its history), a tool
 * call until `turns - 1`, then a final answer; a run asks for its length in its prompt
 * ("... 1000 turns ...", default 6). Requests are validated only when asked (the validator walks
 * the whole history: server cost a long run's client would wait for) and not kept (a 1000-turn
 * run would hold every body). Prints `{"port":N}` once listening; when stdin closes, prints
 * `{"requests":N,"invalid":M}` and exits. `stamps`: see below.
 */
import type { MessagesRequest } from '../src/protocol/request.js';
import type { ScriptedResponse } from '../src/testing/script.js';
import { startScriptedServer } from '../src/testing/scriptedServer.js';

/** The reply to the request at `turn` of a run of `turns`; `arg`: the script's argument, if any. */
type TurnScript = (turn: number, turns: number, arg: string) => ScriptedResponse;

const SCRIPTS: Readonly<Record<string, TurnScript>> = {
  /** One tool call per turn, no text: the loop's fixed cost per iteration and nothing else. */
  toolPerTurn: (turn, turns) =>
    turn < turns - 1
      ? { kind: 'message', blocks: [{ type: 'tool_use', name: 'fetch', input: { n: turn } }] }
      : { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
  /**
   * One built-in Read per turn, of `<dir>/<turn>.txt` (the argument is the directory): the
   * command's own tool, run as a user's would be. A file per turn, since the command refuses a
   * call repeated with the same input.
   */
  readPerTurn: (turn, turns, dir) =>
    turn < turns - 1
      ? { kind: 'message', blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: `${dir}/${turn}.txt` } }] }
      : { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
  /** A few tokens of text, then one tool call: a small realistic turn (the load bench). */
  textThenTool: (turn, turns) =>
    turn < turns - 1
      ? {
          kind: 'message',
          blocks: [
            { type: 'text', text: `Working on step ${turn}.`, chunkSize: 8 },
            { type: 'tool_use', name: 'work', input: { step: turn } },
          ],
        }
      : { kind: 'message', blocks: [{ type: 'text', text: 'All steps are done.', chunkSize: 8 }] },
};

function turnOf(request: MessagesRequest): number {
  let turn = 0;
  for (const message of request.messages) if (message.role === 'assistant') turn++;
  return turn;
}

/** The run's length, from its first message ("... 1000 turns ..."). */
function turnsOf(request: MessagesRequest): number {
  const first = request.messages[0]?.content;
  const text = typeof first === 'string' ? first : first?.map((b) => (b.type === 'text' ? b.text : '')).join('') ?? '';
  return Number(/(\d+) turns/.exec(text)?.[1] ?? DEFAULT_TURNS);
}

const DEFAULT_TURNS = 6;
const [spec = '', ...flags] = process.argv.slice(2);
// `<script>=<arg>`: the argument is the script's (readPerTurn's file).
const eq = spec.indexOf('=');
const name = eq < 0 ? spec : spec.slice(0, eq);
const scriptArg = eq < 0 ? '' : spec.slice(eq + 1);
const script = SCRIPTS[name];
if (script === undefined) throw new Error(`usage: scriptedServerMain <${Object.keys(SCRIPTS).join('|')}>[=arg] [validate] [stamps]`);
const validate = flags.includes('validate');
// `stamps`: the arrival time of each request of a conversation (performance.now(), when its body
// has been read), printed as one line `{"arrivals":[...]}` once its last request has arrived, for
// a bench whose client is another process (the command) that cannot stamp its own iterations.
const stamps = flags.includes('stamps');
let arrivals: number[] = [];

let received = 0;
let invalid = 0;
const server = await startScriptedServer({
  script: (request) => {
    const turn = turnOf(request);
    const turns = turnsOf(request);
    if (stamps && turn === turns - 1) process.stdout.write(`${JSON.stringify({ arrivals })}\n`);
    return script(turn, turns, scriptArg);
  },
  validate,
  onRequest: (record) => {
    if (stamps) {
      const at = performance.now();
      if (record.body !== undefined && turnOf(record.body) === 0) arrivals = [];
      arrivals.push(at);
    }
    received++;
    if (record.validationErrors.length > 0) invalid++;
    server.requests.length = 0;
  },
});
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => {
    process.stdout.write(`${JSON.stringify({ requests: received, invalid })}\n`, () => process.exit(0));
  });
});
