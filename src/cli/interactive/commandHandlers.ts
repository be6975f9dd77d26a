/**
 * What each built-in slash command does. They run between turns (the view queues one typed
 * during a turn, except the ones that only show something), print their answer above the
 * prompt, and never send anything to the model — except /compact, whose summary request is the
 * whole point of it.
 */
import { randomUUID } from 'node:crypto';
import { MODEL_LIMITS } from '../../context/models.js';
import { assertNever } from '../../util/assertNever.js';
import { loadCliAgentDefinitions } from '../subagents.js';
import { packageVersion } from '../version.js';
import { CompactCancelled, compactRun } from './compactNow.js';
import type { CustomCommand } from './customCommands.js';
import type { FrontEnd } from './frontEnd.js';
import { mcpCommand } from './mcpCommand.js';
import type { Paint } from './permissionQuestion.js';
import { resumeCommand, permissionsCommand, type SessionCommandContext } from './sessionCommands.js';
import { helpText, mcpPromptCommands, type BuiltinName } from './slashCommands.js';
import { costReport } from './statusLine.js';
import { sameSession, type ViewSession } from './viewSession.js';

export interface CommandContext extends SessionCommandContext {
  readonly session: ViewSession;
  readonly frontEnd: FrontEnd;
  readonly paint: Paint;
  readonly custom: ReadonlyMap<string, CustomCommand>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted by Esc while the command runs. */
  readonly signal: AbortSignal;
  /** /exit: leave after this command. */
  readonly exit: () => void;
}

/** Commands that only show something: they may run while a turn is running. */
export const SHOW_ONLY: ReadonlySet<BuiltinName> = new Set(['help', 'cost', 'status', 'agents', 'mcp']);

const say = (ctx: CommandContext, text: string) => ctx.frontEnd.print(`${text.replace(/\n+$/, '')}\n`);

async function compact(args: string, ctx: CommandContext): Promise<void> {
  const run = ctx.session.run;
  try {
    const result = await compactRun(run, args, { signal: ctx.signal, chainId: randomUUID() });
    if (!result) return say(ctx, 'This run cannot compact (no model client or transcript).');
    if (result.type === 'too_short') return say(ctx, ctx.paint('dim', '(nothing to compact yet: the conversation is a single exchange)'));
    ctx.session.contextTokens = result.postTokens;
    say(ctx, ctx.paint('dim', `(conversation compacted: about ${result.preTokens} -> ${result.postTokens} tokens)`));
  } catch (error) {
    if (error instanceof CompactCancelled) return say(ctx, ctx.paint('yellow', `(${error.message})`));
    say(ctx, ctx.paint('red', `Compaction failed: ${(error as Error).message}. The conversation is unchanged.`));
  }
}

async function model(args: string, ctx: CommandContext): Promise<void> {
  let name = args.trim();
  if (name === '') {
    const known = Object.keys(MODEL_LIMITS);
    const picked = await ctx.frontEnd.choose(
      `Model (now ${ctx.session.run.model})`,
      known.map((m) => ({ label: m, value: m })),
      ctx.signal,
    );
    if (picked === undefined) return say(ctx, `Model: ${ctx.session.run.model} (switch with /model <name>)`);
    name = picked;
  }
  if (name === ctx.session.run.model) return say(ctx, `Already using ${name}.`);
  await ctx.session.rebuild({ ...sameSession(ctx.session.run), model: name, modelGiven: true });
  say(ctx, `Model set to ${name}; the conversation goes on.`);
}

function status(ctx: CommandContext): string {
  const run = ctx.session.run;
  return [
    `rxagent ${packageVersion()}`,
    `Session:         ${run.sessionId}`,
    `Transcript:      ${run.transcriptPath}`,
    `Directory:       ${run.cwd}`,
    `Model:           ${run.model}`,
    `Permission mode: ${run.permissionMode}`,
    `API:             ${ctx.env['ANTHROPIC_BASE_URL'] || 'https://api.anthropic.com'} (key from ${run.apiKeySource})`,
    `Tools:           ${run.toolNames.join(', ') || '(none)'}`,
  ].join('\n');
}

async function agents(ctx: CommandContext): Promise<string> {
  if (!ctx.session.run.toolNames.includes('Agent')) return 'Subagents are off (--tools leaves out Agent).';
  const definitions = await loadCliAgentDefinitions(ctx.session.run.cwd, ctx.session.options.agents);
  const lines = ['Subagents the model can start (.rxagent/agents/*.md, --agents):'];
  for (const d of definitions) {
    const extra = [d.tools ? `tools: ${d.tools.join(', ')}` : 'all tools', ...(d.model ? [`model: ${d.model}`] : [])].join('; ');
    lines.push(`  ${d.name} — ${d.description} (${extra})`);
  }
  return lines.join('\n');
}

export async function runBuiltin(name: BuiltinName, args: string, ctx: CommandContext): Promise<void> {
  switch (name) {
    case 'help':
      return say(ctx, helpText(ctx.custom, mcpPromptCommands(ctx.session.run.slashCommands)));
    case 'clear':
      await ctx.session.rebuild({ resume: undefined, continue: false, forkSession: false, sessionId: randomUUID() }, { clear: true });
      ctx.session.contextTokens = 0;
      return say(ctx, ctx.paint('dim', `(new conversation, session ${ctx.session.run.sessionId}; the previous one stays available to /resume)`));
    case 'compact':
      return compact(args, ctx);
    case 'cost':
      return say(ctx, costReport(ctx.session.totals, Date.now() - ctx.session.startedAt));
    case 'model':
      return model(args, ctx);
    case 'resume':
      return resumeCommand(args, ctx);
    case 'status':
      return say(ctx, status(ctx));
    case 'permissions':
      return permissionsCommand(args, ctx);
    case 'agents':
      return say(ctx, await agents(ctx));
    case 'mcp':
      return mcpCommand(args, ctx);
    case 'exit':
      return ctx.exit();
    default:
      return assertNever(name, 'slash command');
  }
}
