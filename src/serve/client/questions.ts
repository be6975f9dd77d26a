/**
 * MCP servers' questions (form elicitation) as forms on the page: the server's name and message,
 * one control per field (a text or number box, a checkbox for a boolean, a select for an enum,
 * checkboxes for a multi-select), and Accept / Decline / Cancel. Accept checks every field with
 * the same `valueOf` the terminal form uses (the reason shows under the field, nothing is sent
 * until all fit); the answer goes out as an `elicitation` command. A form stays as typed while
 * its question waits; it goes when the question is settled (answered here, in another tab, or
 * withdrawn by the server).
 */
import { valueOf, type ElicitationField, type ElicitedValue } from '../../mcp/elicitation.js';
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
    const boxes = field.options.map((option) => {
      const box = h('input', { type: 'checkbox', name, value: option });
      box.checked = chosen.has(option);
      return { option, box };
    });
    return { el: h('span', {}, ...boxes.map(({ option, box }) => h('label', { class: 'inline' }, box, ` ${option}`))), read: () => boxes.filter((b) => b.box.checked).map((b) => b.option) };
  }
  if (field.options) {
    const select = h('select', { name }, ...(field.required ? [] : [h('option', { value: '' }, '(none)')]), ...field.options.map((o) => h('option', { value: o }, o)));
    if (typeof field.default === 'string') select.value = field.default;
    return { el: select, read: () => select.value };
  }
  const input = h('input', { type: field.type === 'string' ? 'text' : 'number', name });
  if (field.default !== undefined && !Array.isArray(field.default)) input.value = String(field.default);
  return { el: input, read: () => input.value };
}

/** The form's values, or the first field that does not fit and why. */
function collect(fields: readonly { field: ElicitationField; read: () => string | string[] | boolean; reason: HTMLElement }[]): Record<string, ElicitedValue> | undefined {
  const content: Record<string, ElicitedValue> = {};
  let ok = true;
  for (const { field, read, reason } of fields) {
    reason.textContent = '';
    const raw = read();
    if (typeof raw === 'boolean') {
      content[field.name] = raw;
      continue;
    }
    if (Array.isArray(raw)) {
      if (raw.length > 0 || field.required) content[field.name] = raw;
      continue;
    }
    if (raw.trim() === '') {
      if (field.required) {
        reason.textContent = 'required';
        ok = false;
      }
      continue;
    }
    const value = valueOf(field, raw);
    if (value.ok) content[field.name] = value.value;
    else {
      reason.textContent = value.reason;
      ok = false;
    }
  }
  return ok ? content : undefined;
}

function questionForm(question: ElicitationView, send: (answer: Answer) => void): HTMLElement {
  const fields = question.fields.map((field) => ({ field, ...control(field), reason: h('span', { class: 'reason', 'data-reason-for': field.name }) }));
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
