/**
 * The scripted model server in its own process, for benchmarks of the client side: in the same
 * process its JSON parsing and SSE writing would be charged to the client being measured and
 * compete with it for the event loop (which hid most of the event-loop lag under load).
 *
 * `node dist/bench/scriptedServerMain.js <script> [validate]` where `<script>` is one of `SCRIPTS`: each
 * request gets the reply for its turn (the assistant messages already in its history), a tool
 * call until `turns - 1`, then a final answer; a run asks for its length in its prompt
 * ("... 1000 turns ...", default 6). Requests are validated only when asked (the validator walks
 * the whole history: server cost a long run's client would wait for) and not kept (a 1000-turn
 * run would hold every body). Prints `{"port":N}` once listening; when stdin closes, prints
 * `{"requests":N,"invalid":M}` and exits.
 */
import type { MessagesRequest } from '../src/protocol/request.js';
import type { ScriptedResponse } from '../src/testing/script.js';
import { startScriptedServer } from '../src/testing/scriptedServer.js';

/** The reply to the request at `turn` of a run of `turns`. */
type TurnScript = (turn: number, turns: number) => ScriptedResponse;

const SCRIPTS: Readonly<Record<string, TurnScript>> = {
  /** One tool call per turn, no text: the loop's fixed cost per iteration and nothing else. */
  toolPerTurn: (turn, turns) =>
    turn < turns - 1
      ? { kind: 'message', blocks: [{ type: 'tool_use', name: 'fetch', input: { n: turn } }] }
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
const [name = '', validateArg] = process.argv.slice(2);
const script = SCRIPTS[name];
if (script === undefined) throw new Error(`usage: scriptedServerMain <${Object.keys(SCRIPTS).join('|')}>`);

let received = 0;
let invalid = 0;
const server = await startScriptedServer({
  script: (request) => script(turnOf(request), turnsOf(request)),
  validate: validateArg === 'validate',
  onRequest: (record) => {
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
