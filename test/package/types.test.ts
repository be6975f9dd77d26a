/**
 * Type tests of the public surface (checked by `npm run typecheck`, which covers test/; the
 * runtime part only keeps vitest counting them): what the operators and the entry points take
 * and give, and that the block types are exact and readonly.
 */
import type { MonoTypeOperatorFunction, Observable, OperatorFunction } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import { assembleBlocks, decodeSSE, interleaveTools, scheduleTools, withDeadline, withholdRecoverable, type AssemblyOutput, type TransportOutput } from '../../operators/index.js';
import { agentLoop, createAgentRun, type AgentRun, type LoopEvent, type MessageParam, type Submission, type TerminalEvent, type TextBlock, type ToolEvent, type ToolResultBlock, type ToolUseBlock, isTerminalEvent } from '../../src/index.js';

describe('public types', () => {
  it('agentLoop is an Observable of loop events; input$ is a stream of submissions', () => {
    expectTypeOf(agentLoop).returns.toEqualTypeOf<Observable<LoopEvent>>();
    expectTypeOf(agentLoop).parameter(0).toHaveProperty('input$').toEqualTypeOf<Observable<Submission> | undefined>();
    expectTypeOf(createAgentRun).returns.toEqualTypeOf<AgentRun>();
    expectTypeOf<AgentRun['events$']>().toEqualTypeOf<Observable<LoopEvent>>();
    expectTypeOf(isTerminalEvent).guards.toEqualTypeOf<TerminalEvent>();
  });

  it('each stage is an operator from one stage to the next', () => {
    expectTypeOf(decodeSSE()).toEqualTypeOf<OperatorFunction<Uint8Array | string, TransportOutput>>();
    expectTypeOf(assembleBlocks()).toEqualTypeOf<OperatorFunction<TransportOutput, AssemblyOutput>>();
    expectTypeOf(scheduleTools).returns.toEqualTypeOf<OperatorFunction<AssemblyOutput, ToolEvent>>();
    expectTypeOf(interleaveTools<AssemblyOutput, ToolEvent>).returns.toEqualTypeOf<OperatorFunction<AssemblyOutput, AssemblyOutput | ToolEvent>>();
    expectTypeOf(withDeadline<number>).returns.toEqualTypeOf<MonoTypeOperatorFunction<number>>();
    expectTypeOf(withholdRecoverable<number, string>).returns.toEqualTypeOf<OperatorFunction<number, number | string>>();
  });

  it('blocks are exact and readonly', () => {
    expectTypeOf<TextBlock>().not.toHaveProperty('txet');
    // @ts-expect-error no index signature: a misspelt field is an error, not `unknown`
    expectTypeOf<TextBlock['txet']>().toBeUnknown();
    // @ts-expect-error readonly
    const assign = (b: TextBlock) => (b.text = 'x');
    void assign;
    expectTypeOf<ToolUseBlock['input']>().toEqualTypeOf<Readonly<Record<string, unknown>>>();
    // A tool batch's results are a user message's content as they are.
    type Batch = Extract<ToolEvent, { type: 'tool_batch' }>;
    expectTypeOf<Batch['results']>().toEqualTypeOf<readonly ToolResultBlock[]>();
    expectTypeOf<{ role: 'user'; content: Batch['results'] }>().toMatchTypeOf<MessageParam>();
  });
});
