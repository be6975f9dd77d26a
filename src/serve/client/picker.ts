/**
 * The session picker in the page's bar: the live sessions (newest first, by their first prompt),
 * the stored ones of this project (resumed on choice), and "New session". Choosing one loads
 * the page for it (`?session=<id>`, the token kept), so the rest of the page only ever shows
 * one session and a reload or a shared link shows the same.
 */
import { api, withToken, type SessionList } from './api.js';
import { h } from './dom.js';

const NEW = 'new';
const short = (id: string) => id.slice(0, 8);

function optionsOf(list: SessionList, current: string): HTMLElement[] {
  const live = list.sessions.map((s) =>
    h(
      'option',
      { value: `live:${s.sessionId}`, ...(s.sessionId === current ? { selected: '' } : {}) },
      `${s.running ? '● ' : ''}${s.title === '' ? '(no prompt yet)' : s.title} · ${short(s.sessionId)}`,
    ),
  );
  const liveIds = new Set(list.sessions.map((s) => s.sessionId));
  const stored = list.stored
    .filter((s) => !liveIds.has(s.sessionId))
    .map((s) => h('option', { value: `stored:${s.sessionId}` }, `${short(s.sessionId)} · ${s.modifiedAt.slice(0, 16).replace('T', ' ')}`));
  return [
    h('optgroup', { label: 'Open' }, ...live),
    ...(stored.length > 0 ? [h('optgroup', { label: 'Stored (resume)' }, ...stored)] : []),
    h('option', { value: NEW }, '+ New session'),
  ];
}

function go(sessionId: string): void {
  location.assign(withToken('/', { session: sessionId }));
}

/** Fills `select` with the sessions and switches on choice; `refresh()` re-reads the list. */
export function sessionPicker(select: HTMLSelectElement, current: string, onError: (message: string) => void): { refresh(): Promise<void> } {
  // Refreshes can overlap (a turn's start and end in quick succession); the last one asked for
  // wins, so a slow answer about the running turn never overwrites the one about its end.
  let latest = 0;
  const refresh = async () => {
    const asked = ++latest;
    const list = await api.listSessions();
    if (asked === latest) select.replaceChildren(...optionsOf(list, current));
  };
  select.addEventListener('change', () => {
    const [kind, id] = select.value.split(/:(.*)/s);
    const open =
      kind === NEW ? api.createSession() : kind === 'stored' ? api.resumeSession(id!) : Promise.resolve({ session: { sessionId: id! } });
    open.then(
      ({ session }) => (session.sessionId === current ? undefined : go(session.sessionId)),
      (error: Error) => {
        onError(error.message);
        void refresh();
      },
    );
  });
  select.addEventListener('focus', () => void refresh().catch(() => undefined));
  return { refresh };
}
