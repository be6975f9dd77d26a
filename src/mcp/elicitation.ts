/**
 * MCP elicitation (a server asks the user for input mid-call, `elicitation/create`): who answers
 * is the host's choice. Given a handler, the client advertises the `elicitation` capability (form
 * mode) and routes each request to it; without one it advertises nothing, so servers never ask.
 * The command gives the interactive view a form in the terminal (elicitationForm.ts) and `-p` a
 * handler that declines at once with a warning naming the server (nobody is there to answer);
 * an SDK host or the library passes its own `onElicitation`.
 *
 * What the person types in the terminal form is checked against the server's `requestedSchema`
 * (its flat properties: string, number, integer, boolean, enum; `valueOf`) before it is sent.
 */
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export type ElicitedValue = string | number | boolean | string[];

/** One field of a form-mode request, as the spec allows them (flat, primitive). */
export interface ElicitationField {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  /** `array`: a multi-select of `options` (the spec's enum arrays). */
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  readonly required: boolean;
  readonly options?: readonly string[];
  /** What to show for each of `options`, same order (titled enums' `title`, legacy `enumNames`; else the value). */
  readonly optionTitles?: readonly string[];
  readonly default?: ElicitedValue;
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
}

export interface McpElicitation {
  readonly server: string;
  readonly message: string;
  readonly fields: readonly ElicitationField[];
  /** The server's `requestedSchema` as it sent it (for a host that renders the form itself). */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** Aborted when the server cancels the request or the call ends. */
  readonly signal: AbortSignal;
}

export type McpElicitationAnswer = Pick<ElicitResult, 'action' | 'content'>;

export type McpElicitationHandler = (request: McpElicitation) => Promise<McpElicitationAnswer>;

/** The fields of a requested schema; a property of another shape is refused by the caller. */
export function fieldsOf(schema: { readonly properties?: Record<string, unknown>; readonly required?: readonly string[] } | undefined): ElicitationField[] {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).map(([name, raw]) => {
    const p = (raw ?? {}) as Record<string, unknown>;
    const type = p['type'] === 'number' || p['type'] === 'integer' || p['type'] === 'boolean' || p['type'] === 'array' ? p['type'] : 'string';
    const choices = choicesOf(type === 'array' ? ((p['items'] ?? {}) as Record<string, unknown>) : p);
    const num = (key: string) => (typeof p[key] === 'number' ? { [key]: p[key] as number } : {});
    const defaultValue = p['default'];
    return {
      name,
      title: typeof p['title'] === 'string' ? p['title'] : name,
      ...(typeof p['description'] === 'string' ? { description: p['description'] } : {}),
      type,
      required: required.has(name),
      ...(choices ? { options: choices.map((c) => c.value), optionTitles: choices.map((c) => c.title) } : {}),
      ...(typeof defaultValue === 'string' || typeof defaultValue === 'number' || typeof defaultValue === 'boolean' ? { default: defaultValue } : {}),
      ...(Array.isArray(defaultValue) ? { default: defaultValue.map(String) } : {}),
      ...(typeof p['format'] === 'string' ? { format: p['format'] } : {}),
      ...num('minimum'),
      ...num('maximum'),
      ...num('minLength'),
      ...num('maxLength'),
    };
  });
}

/**
 * The choices of an enum with what to show for each: `enum` (titled by the legacy `enumNames`
 * when it names every value), or the `const`s of `oneOf` / `anyOf` with their `title`s.
 */
function choicesOf(p: Record<string, unknown>): { value: string; title: string }[] | undefined {
  if (Array.isArray(p['enum'])) {
    const values = (p['enum'] as unknown[]).map(String);
    const names = Array.isArray(p['enumNames']) && p['enumNames'].length === values.length ? (p['enumNames'] as unknown[]) : undefined;
    return values.map((value, i) => ({ value, title: typeof names?.[i] === 'string' ? names[i] : value }));
  }
  const titled = Array.isArray(p['oneOf']) ? p['oneOf'] : Array.isArray(p['anyOf']) ? p['anyOf'] : undefined;
  return titled
    ? (titled as { const?: unknown; title?: unknown }[]).map((o) => ({ value: String(o.const), title: typeof o.title === 'string' ? o.title : String(o.const) }))
    : undefined;
}

/** What to show for the option at `index` of `field` (its title, else the value). */
export function optionTitle(field: ElicitationField, index: number): string {
  return field.optionTitles?.[index] ?? field.options?.[index] ?? '';
}

/** A typed answer as the field's value, or why it is not one (the person is asked again). */
export function valueOf(field: ElicitationField, typed: string): { ok: true; value: ElicitedValue } | { ok: false; reason: string } {
  const text = typed.trim();
  if (field.type === 'array') {
    const picked = text.split(',').map((t) => t.trim()).filter((t) => t !== '');
    const wrong = picked.filter((t) => field.options && !field.options.includes(t));
    if (wrong.length > 0) return { ok: false, reason: `choose from ${field.options!.join(', ')} (comma-separated)` };
    return { ok: true, value: picked };
  }
  if (field.options && !field.options.includes(text)) return { ok: false, reason: `choose one of ${field.options.join(', ')}` };
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { ok: true, value: true };
      if (/^(n|no|false)$/i.test(text)) return { ok: true, value: false };
      return { ok: false, reason: 'answer yes or no' };
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (text === '' || !Number.isFinite(n)) return { ok: false, reason: 'a number is needed' };
      if (field.type === 'integer' && !Number.isInteger(n)) return { ok: false, reason: 'a whole number is needed' };
      if (field.minimum !== undefined && n < field.minimum) return { ok: false, reason: `at least ${field.minimum}` };
      if (field.maximum !== undefined && n > field.maximum) return { ok: false, reason: `at most ${field.maximum}` };
      return { ok: true, value: n };
    }
    case 'string': {
      if (field.minLength !== undefined && text.length < field.minLength) return { ok: false, reason: `at least ${field.minLength} characters` };
      if (field.maxLength !== undefined && text.length > field.maxLength) return { ok: false, reason: `at most ${field.maxLength} characters` };
      if (field.format === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) return { ok: false, reason: 'an email address is needed' };
      if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { ok: false, reason: 'a date (YYYY-MM-DD) is needed' };
      if (field.format === 'uri' && !URL.canParse(text)) return { ok: false, reason: 'a URL is needed' };
      return { ok: true, value: text };
    }
  }
}

/** `-p`: nobody can answer, so every request is declined at once, with a warning that says so. */
export function declineElicitation(onWarning: (message: string) => void): McpElicitationHandler {
  return async (request) => {
    onWarning(`MCP server "${request.server}" asked for input ("${request.message}"); declined: nobody is there to answer in print mode`);
    return { action: 'decline' };
  };
}
