/**
 * /resume and /permissions: the two commands that look at files beyond the current session.
 * /resume lists this directory's earlier sessions (newest first, with their first prompt) to
 * pick from; /permissions shows the rules in effect and adds or removes rules in
 * `.claude/settings.local.json`, then rebuilds the run so the policy applies them at once.
 */
import { join } from 'node:path';
import { loadSettings } from '../../hooks/settings.js';
import type { MessageParam } from '../../protocol/content.js';
import { escapeForTerminal } from '../../util/escapeForTerminal.js';
import { createJsonlSessionStore } from '../../session/jsonlSessionStore.js';
import { workspaceSlug } from '../../session/paths.js';
import type { FrontEnd } from './frontEnd.js';
import { addLocalRule, localSettingsFile, removeLocalRule } from './localSettings.js';
import type { Paint } from './permissionQuestion.js';
import { sameSession, type ViewSession } from './viewSession.js';

export interface SessionCommandContext {
  readonly session: ViewSession;
  readonly frontEnd: FrontEnd;
  readonly paint: Paint;
  readonly homeDir: string;
  readonly signal: AbortSignal;
}

const say = (ctx: SessionCommandContext, text: string) => ctx.frontEnd.print(`${text.replace(/\n+$/, '')}\n`);
const MAX_LISTED = 12;

function textOf(message: MessageParam): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ');
}

async function listSessions(ctx: SessionCommandContext): Promise<Array<{ id: string; label: string }>> {
  const cwd = ctx.session.run.cwd;
  const store = createJsonlSessionStore({ workspace: cwd, dir: join(ctx.homeDir, '.rxagent', 'projects', workspaceSlug(cwd)) });
  const infos = (await store.list()).filter((s) => s.sessionId !== ctx.session.run.sessionId).slice(0, MAX_LISTED);
  return Promise.all(
    infos.map(async (info) => {
      const { records } = await store.read(info.sessionId);
      const first = records.find((r) => r.type === 'user' && r.reason === 'prompt');
      const prompt = first && first.type === 'user' ? escapeForTerminal(textOf(first.message).replace(/\s+/g, ' ').trim()).text : '(no prompt)';
      const when = info.modifiedAt.toISOString().slice(0, 16).replace('T', ' ');
      return { id: info.sessionId, label: `${when}  ${prompt.length > 60 ? `${prompt.slice(0, 57)}...` : prompt}  (${info.sessionId.slice(0, 8)})` };
    }),
  );
}

export async function resumeCommand(args: string, ctx: SessionCommandContext): Promise<void> {
  let id = args.trim();
  if (id === '') {
    const sessions = await listSessions(ctx);
    if (sessions.length === 0) return say(ctx, 'No other session of this directory to resume.');
    if (!ctx.frontEnd.interactive) {
      return say(ctx, ['Sessions of this directory (newest first); resume one with /resume <id>:', ...sessions.map((s) => `  ${s.id}  ${s.label}`)].join('\n'));
    }
    const picked = await ctx.frontEnd.choose('Resume which session?', sessions.map((s) => ({ label: s.label, value: s.id })), ctx.signal);
    if (picked === undefined) return say(ctx, ctx.paint('dim', '(resume cancelled)'));
    id = picked;
  }
  if (id === ctx.session.run.sessionId) return say(ctx, 'That is the current session.');
  await ctx.session.rebuild({ resume: id, continue: false, forkSession: false, sessionId: undefined });
  ctx.session.contextTokens = 0;
  say(ctx, ctx.paint('dim', `(resumed session ${id}: ${ctx.session.run.history.length} messages)`));
}

async function showRules(ctx: SessionCommandContext): Promise<string> {
  const { options, run } = ctx.session;
  const settings = await loadSettings({
    cwd: run.cwd,
    homeDir: ctx.homeDir,
    ...(options.settings ? { settingsFile: options.settings } : {}),
    ...(options.managedSettings ? { managedSettings: options.managedSettings } : {}),
  });
  const lines = [`Permission mode: ${run.permissionMode}`];
  const list = (title: string, rules: readonly string[]) => lines.push(rules.length === 0 ? `${title}: (none)` : `${title}:`, ...rules.map((r) => `  ${escapeForTerminal(r, { newlines: 'escape' }).text}`));
  list('Allow', [...settings.permissions.allow, ...options.allowedTools]);
  list('Ask', settings.permissions.ask);
  list('Deny', [...settings.permissions.deny, ...options.disallowedTools]);
  lines.push(`Settings files read: ${settings.files.join(', ') || '(none)'}`);
  lines.push(`Edit: /permissions allow|ask|deny <rule>, /permissions remove <rule> (saved in ${localSettingsFile(run.cwd)})`);
  return lines.join('\n');
}

export async function permissionsCommand(args: string, ctx: SessionCommandContext): Promise<void> {
  const match = /^(allow|deny|ask|remove)\s+(.+)$/s.exec(args.trim());
  if (args.trim() === '') return say(ctx, await showRules(ctx));
  if (!match) return say(ctx, 'Usage: /permissions, /permissions allow|ask|deny <rule>, /permissions remove <rule>');
  const [, verb, rule] = match as unknown as [string, 'allow' | 'deny' | 'ask' | 'remove', string];
  const cwd = ctx.session.run.cwd;
  try {
    if (verb === 'remove') {
      if (!removeLocalRule(cwd, rule)) return say(ctx, `${rule} is not in ${localSettingsFile(cwd)} (rules from other files are edited there).`);
    } else {
      addLocalRule(cwd, verb, rule);
    }
  } catch (error) {
    return say(ctx, ctx.paint('red', `Could not change the rules: ${(error as Error).message}`));
  }
  // The policy is built from the settings files: rebuild the run on the same session to apply it.
  await ctx.session.rebuild(sameSession(ctx.session.run));
  say(ctx, `${verb === 'remove' ? 'Removed' : `Added ${verb} rule`} ${rule.trim()} (${localSettingsFile(cwd)}).`);
}
