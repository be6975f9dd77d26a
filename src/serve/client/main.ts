/**
 * The page: the session's SSE events, folded by the same `rxagent/ui` reducer every UI uses
 * (`toViewStamped`), rendered once per animation frame at most; the composer, Allow/Deny, Stop.
 * The session is the one in the URL (`?session=`), else the newest live one, so a reload or a
 * second tab shows the same run; the URL is updated to name it. The picker in the bar switches
 * to another session, resumes a stored one or opens a new one.
 *
 * What the person does is ONE stream of commands (Enter: a prompt, Allow/Deny: a permission
 * answer, an MCP server's form answered, Stop), sent in order (`concatMap`) to the session's commands route, which drives the
 * same command session an Rx app drives with `runCommands`.
 */
import { animationFrameScheduler, auditTime, catchError, combineLatest, concatMap, EMPTY, from, interval, map, share, startWith, Subject } from 'rxjs';
import { inputSummary } from '../../ui/inputSummary.js';
import { emptyView, liveCost, liveUsage, toViewStamped, type AgentView, type PermissionView } from '../../ui/index.js';
import { api, type PageCommand, type SessionInfo } from './api.js';
import { h } from './dom.js';
import { sessionEvents } from './events.js';
import { sessionPicker } from './picker.js';
import { renderQuestions } from './questions.js';
import { ConversationRenderer, elapsedText } from './render.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const conversation = byId<HTMLElement>('conversation');
const permissionsEl = byId<HTMLElement>('permissions');
const questionsEl = byId<HTMLElement>('questions');
const promptEl = byId<HTMLTextAreaElement>('prompt');
const stopEl = byId<HTMLButtonElement>('stop');
const statusEl = byId<HTMLElement>('status');
const countersEl = byId<HTMLElement>('counters');
const sessionEl = byId<HTMLElement>('session');
const pickerEl = byId<HTMLSelectElement>('sessions');

function showError(message: string): void {
  conversation.append(h('div', { class: 'notice warning', role: 'alert' }, message));
}

async function chooseSession(): Promise<SessionInfo> {
  const wanted = new URLSearchParams(location.search).get('session');
  if (wanted) return (await api.getSession(wanted)).session;
  const { sessions } = await api.listSessions();
  const session = sessions[0] ?? (await api.createSession()).session;
  const url = new URL(location.href);
  url.searchParams.set('session', session.sessionId);
  history.replaceState(null, '', url);
  return session;
}

/** Everything the person asks for, in the order asked. */
const commands = new Subject<PageCommand & { readonly onError?: (message: string) => void }>();

function renderPermissions(permissions: readonly PermissionView[]): void {
  const shown = new Map([...permissionsEl.children].map((el) => [(el as HTMLElement).dataset['requestId'] ?? '', el]));
  const wanted = new Set(permissions.map((p) => p.requestId));
  for (const [id, el] of shown) if (!wanted.has(id)) el.remove();
  for (const p of permissions) {
    if (shown.has(p.requestId)) continue;
    const allow = h('button', { type: 'button', class: 'allow' }, 'Allow');
    const deny = h('button', { type: 'button', class: 'deny' }, 'Deny');
    const answer = (behavior: 'allow' | 'deny') => {
      allow.disabled = deny.disabled = true;
      commands.next({ type: 'permission', requestId: p.requestId, behavior });
    };
    allow.addEventListener('click', () => answer('allow'));
    deny.addEventListener('click', () => answer('deny'));
    permissionsEl.append(
      h(
        'div',
        { class: 'permission', 'data-request-id': p.requestId, 'data-tool-name': p.toolName },
        h('div', { class: 'what' }, h('strong', {}, p.toolName), ' ', h('code', {}, inputSummary(p.input)), h('div', { class: 'dim' }, p.reason)),
        allow,
        deny,
      ),
    );
  }
}

function renderChrome(view: AgentView, connection: string): void {
  // Live: a streaming response counts too (its output estimated until the API counts it: "~").
  const u = liveUsage(view);
  const cost = liveCost(view);
  const approx = u.estimated ? '~' : '';
  countersEl.textContent = `${u.inputTokens.toLocaleString('en-US')} in · ${approx}${u.outputTokens.toLocaleString('en-US')} out tokens · ${cost.estimated ? '~' : ''}$${cost.costUsd.toFixed(4)}`;
  const status = connection !== 'open' ? connection : view.running ? 'running' : 'idle';
  statusEl.textContent = status;
  statusEl.className = `status ${status}`;
  stopEl.disabled = !view.running;
}

function tickElapsed(): void {
  const now = Date.now();
  for (const el of document.querySelectorAll<HTMLElement>('.tool[data-status="running"] .elapsed')) {
    el.textContent = elapsedText(Number(el.dataset['started']), now);
  }
}

async function start(): Promise<void> {
  const session = await chooseSession();
  sessionEl.textContent = `${session.model} · ${session.cwd}`;
  const picker = sessionPicker(pickerEl, session.sessionId, showError);
  await picker.refresh();
  const { events$, connection$ } = sessionEvents(api.eventsUrl(session.sessionId));
  const view$ = events$.pipe(toViewStamped(), startWith(emptyView()), share());
  const renderer = new ConversationRenderer(conversation);
  let atBottom = true;
  let pickerKey = '';
  conversation.addEventListener('scroll', () => {
    atBottom = conversation.scrollTop + conversation.clientHeight >= conversation.scrollHeight - 40;
  });
  // One DOM update per frame at most, however fast the deltas come.
  combineLatest([view$, connection$])
    .pipe(auditTime(0, animationFrameScheduler))
    .subscribe(([view, connection]) => {
      renderer.render(view);
      renderPermissions(view.permissions);
      renderQuestions(questionsEl, view.elicitations, (answer) => commands.next(answer));
      renderChrome(view, connection);
      if (atBottom) conversation.scrollTop = conversation.scrollHeight;
      // A turn started or ended: the picker's titles and running marks change with it. Keyed on the
      // turn count too, since a quick turn can start and end within one frame (never seen running).
      const key = `${view.running}:${view.turns.length}`;
      if (key !== pickerKey) void picker.refresh().catch(() => undefined);
      pickerKey = key;
    });
  interval(200).pipe(map(() => undefined)).subscribe(tickElapsed);

  promptEl.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    const text = promptEl.value;
    if (text.trim() === '') return;
    promptEl.value = '';
    atBottom = true;
    commands.next({
      type: 'prompt',
      text,
      onError: (message) => {
        promptEl.value = text;
        showError(message);
      },
    });
  });
  stopEl.addEventListener('click', () => commands.next({ type: 'stop' }));
  commands
    .pipe(
      concatMap(({ onError, ...command }) =>
        from(api.command(session.sessionId, command)).pipe(
          catchError((error: Error) => {
            (onError ?? showError)(error.message);
            return EMPTY;
          }),
        ),
      ),
    )
    .subscribe();
  document.body.dataset['ready'] = 'true';
}

start().catch((error: unknown) => showError(`Could not start: ${error instanceof Error ? error.message : String(error)}`));
