/**
 * A list of choices at the bottom of the screen (a permission question, the session picker), as
 * a pure reducer: Up/Down move, a digit picks that entry, Enter picks the highlighted one, Esc
 * (or Ctrl-C) cancels. Keys typed into it never reach the prompt.
 */
import type { EditorKey } from './keys.js';

export interface ChoiceState<T> {
  readonly title: string;
  readonly options: ReadonlyArray<{ readonly label: string; readonly value: T }>;
  readonly selected: number;
}

export type ChoiceStep<T> =
  | { readonly type: 'open'; readonly state: ChoiceState<T> }
  | { readonly type: 'picked'; readonly value: T }
  | { readonly type: 'cancelled' };

export function reduceChoice<T>(state: ChoiceState<T>, key: EditorKey): ChoiceStep<T> {
  const count = state.options.length;
  switch (key.type) {
    case 'up':
      return { type: 'open', state: { ...state, selected: (state.selected + count - 1) % count } };
    case 'down':
    case 'tab':
      return { type: 'open', state: { ...state, selected: (state.selected + 1) % count } };
    case 'submit':
      return { type: 'picked', value: state.options[state.selected]!.value };
    case 'escape':
    case 'interrupt':
      return { type: 'cancelled' };
    case 'insert': {
      const n = Number(key.text.trim());
      if (Number.isInteger(n) && n >= 1 && n <= count) return { type: 'picked', value: state.options[n - 1]!.value };
      return { type: 'open', state };
    }
    default:
      return { type: 'open', state };
  }
}

/** The panel lines of an open choice: the title, then numbered options with the highlighted one marked. */
export function choiceLines<T>(state: ChoiceState<T>, paint: (style: 'cyan' | 'dim', text: string) => string): string[] {
  return [
    state.title,
    ...state.options.map((o, i) => (i === state.selected ? paint('cyan', `❯ ${i + 1}. ${o.label}`) : `  ${i + 1}. ${o.label}`)),
    paint('dim', '  ↑/↓ or a number to choose · Enter to confirm · Esc to cancel'),
  ];
}
