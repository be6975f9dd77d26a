/**
 * MCP servers' questions (form elicitation) as forms on the page: the server's name and message,
 * one control per field (a text or number box, a checkbox for a boolean, a select for an enum,
 * checkboxes for a multi-select), and Accept / Decline / Cancel. Accept checks every field with
 * the same `valueOf` the terminal form uses (the reason shows beside the field, nothing is sent
 * until all fit, and a field showing a reason is checked again as it changes); titled enums show
 * their titles and send their values; the answer goes out as an `elicitation` command. A form stays as typed while
 * its question waits; it goes when the question is settled (answered here, in another tab, or
 * withdrawn by the server).
 */
import { optionTitle, valueOf, type ElicitationField, type ElicitedValue } from '../../mcp/elicitation.js';
import type { ElicitationView } from '../../ui/types.js';
import type { PageCommand } from './api.js';
import { h } from './dom.js';

type Answer = Extract<PageCommand, { type: 'elicitation' }>;

/** A field's control, and how to read what the person entered ('' = left empty). */
function control(field: ElicitationField): { el: HTMLElement; read: () => string | string[] | boolean } {
  const name = `field-${field.name}`;
  if (field.type === 'boolean') {
    const box = h('input', { type: 'checkbox', name });
    box.checked = field.default === true;
    return { el: box, read: () => box.checked };
  }
  if (field.type === 'array' && field.options) {
    const chosen = new Set(Array.isArray(field.default) ? field.default : []);
    const boxes = field.options.map((option, i) => {
      const box = h('input', { type: 'checkbox', name, value: option });
      box.checked = chosen.has(option);
      return { option, title: optionTitle(field, i), box };
    });
    return { el: h('span', {}, ...boxes.map(({ title, box }) => h('label', { class: 'inline' }, box, ` ${title}`))), read: () => boxes.filter((b) => b.box.checked).map((b) => b.option) };
  }
  if (field.options) {
    // Titled enums show their titles; the value sent is the option's own (`const`).
    const select = h('select', { name }, ...(field.required ? [] : [h('option', { value: '' }, '(none)')]), ...field.options.map((o, i) => h('option', { value: o }, optionTitle(field, i))));
    if (typeof field.default === 'string') select.value = field.default;
    return { el: select, read: () => select.value };
  }
  const input = h('input', { type: field.type === 'string' ? 'text' : 'number', name });
  if (field.default !== undefined && !Array.isArray(field.default)) input.value = String(field.default);
  return { el: input, read: () => input.value };
}

interface FieldEntry {
  readonly field: ElicitationField;
  readonly el: HTMLElement;
  readonly read: () => string | string[] | boolean;
  readonly reason: HTMLElement;
}

type Checked = { readonly ok: true; readonly value?: ElicitedValue } | { readonly ok: false; readonly reason: string };

/** One field's value (none: left empty and optional), or why it does not fit. */
function check({ field, read }: FieldEntry): Checked {
  const raw = read();
  if (typeof raw === 'boolean') return { ok: true, value: raw };
  if (Array.isArray(raw)) return raw.length > 0 || field.required ? { ok: true, value: raw } : { ok: true };
  if (raw.trim() === '') return field.required ? { ok: false, reason: 'required' } : { ok: true };
  return valueOf(field, raw);
}

/** Shows the field's reason, or clears it when the field fits. */
function show(entry: FieldEntry, checked: Checked): void {
  entry.reason.textContent = checked.ok ? '' : checked.reason;
}

/** The form's values, or undefined with every field that does not fit showing why. */
function collect(fields: readonly FieldEntry[]): Record<string, ElicitedValue> | undefined {
  const content: Record<string, ElicitedValue> = {};
  let ok = true;
  for (const entry of fields) {
    const checked = check(entry);
    show(entry, checked);
    if (!checked.ok) ok = false;
    else if (checked.value !== undefined) content[entry.field.name] = checked.value;
  }
  return ok ? content : undefined;
}

/** Once a field shows a reason, each change checks it again, so a corrected answer loses its reason at once. */
function recheckOnChange(entry: FieldEntry): void {
  const again = () => {
    if (entry.reason.textContent !== '') show(entry, check(entry));
  };
  entry.el.addEventListener('input', again);
  entry.el.addEventListener('change', again);
}

function questionForm(question: ElicitationView, send: (answer: Answer) => void): HTMLElement {
  const fields: FieldEntry[] = question.fields.map((field) => ({ field, ...control(field), reason: h('span', { class: 'reason', 'data-reason-for': field.name }) }));
  fields.forEach(recheckOnChange);
  const buttons = ['accept', 'decline', 'cancel'].map((action) => h('button', { type: 'button', class: action, 'data-action': action }, action[0]!.toUpperCase() + action.slice(1)));
  const answer = (action: Answer['action']) => {
    const content = action === 'accept' ? collect(fields) : undefined;
    if (action === 'accept' && content === undefined) return;
    buttons.forEach((b) => (b.disabled = true));
    send({ type: 'elicitation', requestId: question.requestId, action, ...(content ? { content } : {}) });
  };
  buttons.forEach((b) => b.addEventListener('click', () => answer(b.dataset['action'] as Answer['action'])));
  return h(
    'div',
    { class: 'question', 'data-request-id': question.requestId, 'data-server': question.server },
    h('div', { class: 'what' }, h('strong', {}, question.server), ' asks: ', question.message),
    ...fields.map(({ field, el, reason }) =>
      h(
        'label',
        { 'data-field': field.name },
        h('span', { class: 'field-title' }, `${field.title}${field.required ? ' *' : ''}`),
        el,
        field.description ? h('span', { class: 'dim' }, ` ${field.description}`) : undefined,
        ' ',
        reason,
      ),
    ),
    h('div', { class: 'buttons' }, ...buttons),
  );
}

/** Keeps `container`'s forms in step with the waiting questions (a form is never rebuilt while it waits). */
export function renderQuestions(container: HTMLElement, questions: readonly ElicitationView[], send: (answer: Answer) => void): void {
  const shown = new Map([...container.children].map((el) => [(el as HTMLElement).dataset['requestId'] ?? '', el]));
  const wanted = new Set(questions.map((q) => q.requestId));
  for (const [id, el] of shown) if (!wanted.has(id)) el.remove();
  for (const question of questions) if (!shown.has(question.requestId)) container.append(questionForm(question, send));
}
