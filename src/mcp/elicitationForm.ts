/**
 * A server's elicitation as a form in the interactive view: the server's message, then Accept /
 * Decline / Cancel; on Accept each field is asked in turn (a choice for booleans and enums, a
 * line for the rest, Enter keeping the default or skipping an optional field), an answer that
 * does not fit the field is asked again with the reason. Withdrawn (the server cancelled, the
 * call ended) or unanswerable (piped input): cancel or decline, never a hang.
 */
import { optionTitle, valueOf, type ElicitationField, type ElicitedValue, type McpElicitationAnswer, type McpElicitationHandler } from './elicitation.js';

/** What the form needs of the view (the interactive FrontEnd has these). */
export interface FormView {
  print(text: string): void;
  choose<T>(title: string, options: ReadonlyArray<{ readonly label: string; readonly value: T }>, signal?: AbortSignal): Promise<T | undefined>;
  readLine(label: string, signal?: AbortSignal): Promise<string | undefined>;
}

/** Each field gets at most this many tries before the form is cancelled. */
const MAX_TRIES = 3;

export function askInForm(view: FormView): McpElicitationHandler {
  // One form at a time: two servers asking at once are asked in turn.
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const asked = queue.then(async (): Promise<McpElicitationAnswer> => {
      view.print(`\nMCP server "${request.server}" asks: ${request.message}\n`);
      const action = await view.choose(
        'Answer it?',
        [
          { label: 'Accept (fill in the form)', value: 'accept' as const },
          { label: 'Decline', value: 'decline' as const },
          { label: 'Cancel', value: 'cancel' as const },
        ],
        request.signal,
      );
      if (request.signal.aborted) return { action: 'cancel' };
      if (action === undefined) return { action: 'decline' };
      if (action !== 'accept') return { action };
      const content: Record<string, ElicitedValue> = {};
      for (const field of request.fields) {
        const value = await askField(view, field, request.signal);
        if (value === 'cancelled') return { action: 'cancel' };
        if (value !== undefined) content[field.name] = value;
      }
      return { action: 'accept', content };
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
}

async function askField(view: FormView, field: ElicitationField, signal: AbortSignal): Promise<ElicitedValue | undefined | 'cancelled'> {
  // The question is one line of the view, cut at its width: what explains the field (the
  // server's description, the choices of a multi-select) is printed above it, whole.
  const label = `${field.title}${field.required ? '' : ' [optional]'}`;
  if (field.description) view.print(`  ${field.title}: ${field.description}\n`);
  if (field.type === 'boolean' || (field.options && field.type !== 'array')) {
    const options = field.type === 'boolean' ? [{ label: 'yes', value: 'yes' }, { label: 'no', value: 'no' }] : field.options!.map((o, i) => ({ label: optionTitle(field, i), value: o }));
    const picked = await view.choose(label, [...options, ...(field.required ? [] : [{ label: '(leave empty)', value: '' }])], signal);
    if (picked === undefined || signal.aborted) return 'cancelled';
    if (picked === '') return undefined;
    const parsed = valueOf(field, picked);
    return parsed.ok ? parsed.value : 'cancelled';
  }
  // A titled multi-select is typed as values; each is shown with its title.
  if (field.type === 'array' && field.options) view.print(`  some of: ${field.options.map((o, i) => (optionTitle(field, i) === o ? o : `${o} = ${optionTitle(field, i)}`)).join(', ')} (comma-separated)\n`);
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const hint = field.default !== undefined ? ` [${String(field.default)}]` : '';
    const typed = await view.readLine(`${label}${hint}: `, signal);
    if (typed === undefined || signal.aborted) return 'cancelled';
    if (typed.trim() === '') {
      if (field.default !== undefined) return field.default;
      if (!field.required) return undefined;
      view.print('  an answer is needed\n');
      continue;
    }
    const parsed = valueOf(field, typed);
    if (parsed.ok) return parsed.value;
    view.print(`  ${parsed.reason}\n`);
  }
  return 'cancelled';
}
