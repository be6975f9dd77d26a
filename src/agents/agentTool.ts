/**
 * The `Agent` tool: hands a task to a subagent. Foreground, the call lasts as long as the child
 * and its result is the child's final message; every child event is reported as the call's
 * progress (wrapped in `SubagentEventData`). Background, the call returns at once with
 * "launched <id>"; the tree delivers the final message later as a notification.
 *
 * The tool is only the model-facing edge: which tools, model, budget and abort a child gets is
 * decided by the `SubagentLauncher` the agent tree gives it (`subagentLauncher.ts`).
 */
import { defer, EMPTY, map, of, type Observable } from 'rxjs';
import { z } from 'zod';
import type { TerminalEvent, UsageTotals } from '../loop/types.js';
import { defineTool } from '../tools/defineTool.js';
import { AGENT_INPUT_JSON_SCHEMA } from '../tools/builtinInputJsonSchemas.js';
import { withPrecomputedJsonSchema } from '../tools/precomputedJsonSchema.js';
import type { Tool, ToolYield } from '../tools/types.js';
import { createChildTally, type AgentToolResult } from './agentToolResult.js';
import { reportChild, type ChildReport, type StartedChild } from './childReports.js';
import type { AgentDefinition } from './definitions.js';
import { assertNever } from '../util/assertNever.js';
import { agentToolDescription, launchedText, usageLine } from './texts.js';

export const AGENT_TOOL_NAME = 'Agent';

export const agentInputSchema = withPrecomputedJsonSchema(
  z.strictObject({
    get description() {
      return z.string().trim().min(1).describe('A short (3-5 word) label for the task, shown to the user');
    },
    get prompt() {
      return z.string().trim().min(1).describe('The complete task for the subagent: it sees nothing else of this conversation');
    },
    get subagent_type() {
      return z.string().trim().min(1).describe('Which kind of subagent to start (one of the types listed in the description)');
    },
    get run_in_background() {
      return z
        .boolean()
        .optional()
        .describe('Start it and return at once; its final message is delivered to you later as a message');
    },
  }),
  AGENT_INPUT_JSON_SCHEMA,
);
export type AgentToolInput = z.infer<typeof agentInputSchema>;

export type AgentToolOutput =
  | {
      readonly status: 'completed';
      readonly agentId: string;
      readonly agentType: string;
      /** The child's last assistant text. */
      readonly answer: string;
      readonly terminalReason: TerminalEvent['reason'];
      readonly turns: number;
      readonly usage: UsageTotals;
      /** The child's subtree cost (itself and its own subagents). */
      readonly costUsd: number;
    }
  | { readonly status: 'launched'; readonly agentId: string; readonly agentType: string; readonly description: string };

/** What the agent tree gives its Agent tool. */
export interface SubagentLauncher {
  readonly definitions: ReadonlyMap<string, AgentDefinition>;
  /** Prepares a foreground child (nothing runs until `events$` is subscribed). */
  foreground(definition: AgentDefinition, input: AgentToolInput, parentToolUseId: string, signal: AbortSignal): StartedChild;
  /**
   * Starts a background child now; returns its id. `callSignal` is the launching call's signal:
   * it aborts only if the call is stopped before its result is delivered (truncated, interrupted,
   * aborted, timed out), and then the child is cut with no notification, so the model's "the
   * call was stopped" stays true. Once the "launched" result is delivered the child is the tree's.
   */
  background(definition: AgentDefinition, input: AgentToolInput, parentToolUseId: string, callSignal?: AbortSignal): string;
}

export function renderAgentOutput(output: AgentToolOutput): string {
  if (output.status === 'launched') return launchedText(output.agentId, output.agentType, output.description);
  const line = usageLine({
    agentId: output.agentId,
    agentType: output.agentType,
    costUsd: output.costUsd,
    terminal: { reason: output.terminalReason, turnCount: output.turns, usage: output.usage } as TerminalEvent,
  });
  return `${output.answer}\n\n${line}`;
}

/** Creates the `Agent` tool, which hands a task to a subagent through `launcher`. */
export function createAgentTool(launcher: SubagentLauncher, name = AGENT_TOOL_NAME): Tool<AgentToolInput, AgentToolOutput> {
  const known = () => [...launcher.definitions.keys()].map((n) => `\`${n}\``).join(', ');
  return defineTool<AgentToolInput, AgentToolOutput>({
    name,
    description: agentToolDescription(launcher.definitions.values()),
    inputSchema: agentInputSchema,
    // Children have their own history and tools: several may run side by side.
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    validateInput: (input) =>
      launcher.definitions.has(input.subagent_type)
        ? { ok: true }
        : { ok: false, message: `There is no subagent type \`${input.subagent_type}\`. Use one of: ${known()}.` },
    renderResult: renderAgentOutput,
    call: (input, ctx): Observable<ToolYield<AgentToolOutput>> =>
      defer(() => {
        const definition = launcher.definitions.get(input.subagent_type)!;
        if (input.run_in_background) {
          // Stopped before it could launch: start nothing (runToolCall already answers the call).
          if (ctx.signal.aborted) return EMPTY;
          const agentId = launcher.background(definition, input, ctx.toolUseId, ctx.signal);
          return of<ToolYield<AgentToolOutput>>({
            type: 'outcome',
            output: { status: 'launched', agentId, agentType: definition.name, description: input.description },
          });
        }
        // Every child event is the call's progress; its outcome is the call's result (with its
        // structured form for programs), and a failed child an error result (runToolCall turns
        // the thrown error into one).
        const tally = createChildTally();
        return reportChild(launcher.foreground(definition, input, ctx.toolUseId, ctx.signal)).pipe(
          map((report) => {
            if (report.type === 'event') tally.observe(report.data.event);
            return toToolYield(report, (output) => tally.result(output, input.prompt));
          }),
        );
      }),
  });
}

function toToolYield(report: ChildReport, structuredOf: (output: AgentToolOutput & { readonly status: 'completed' }) => AgentToolResult): ToolYield<AgentToolOutput> {
  switch (report.type) {
    case 'event':
      return { type: 'progress', data: report.data };
    case 'end':
      if (!report.outcome.ok) throw new Error(report.outcome.text);
      return { type: 'outcome', output: report.outcome.output, structured: structuredOf(report.outcome.output) };
    default:
      return assertNever(report);
  }
}
