/** A tiny element builder: `h('div', { class: 'x' }, child, 'text')`. Text children are text nodes (never HTML). */
export type Child = Node | string | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Readonly<Record<string, string | undefined>> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) if (value !== undefined) el.setAttribute(name, value);
  for (const child of children) if (child !== undefined && child !== false) el.append(child);
  return el;
}

/**
 * Keyed reconciliation by identity: an item whose model object did not change keeps its element
 * as is (the view model shares unchanged objects), a changed one is patched or rebuilt.
 */
export class KeyedList<M extends { readonly key: string }> {
  private readonly cache = new Map<string, { model: M; el: HTMLElement }>();

  constructor(
    private readonly container: HTMLElement,
    private readonly build: (model: M) => HTMLElement,
    /** Updates an element for a changed model; returns it, or the element that replaces it. */
    private readonly patch?: (el: HTMLElement, model: M, previous: M) => HTMLElement,
  ) {}

  update(models: readonly M[]): void {
    const els: HTMLElement[] = [];
    const seen = new Set<string>();
    for (const model of models) {
      seen.add(model.key);
      const cached = this.cache.get(model.key);
      let el: HTMLElement;
      if (cached && cached.model === model) el = cached.el;
      else if (cached && this.patch) {
        el = this.patch(cached.el, model, cached.model);
        if (el !== cached.el) cached.el.replaceWith(el);
      } else {
        el = this.build(model);
        if (cached) cached.el.replaceWith(el);
      }
      this.cache.set(model.key, { model, el });
      els.push(el);
    }
    for (const key of [...this.cache.keys()]) if (!seen.has(key)) this.cache.delete(key);
    const current = [...this.container.children];
    if (current.length !== els.length || current.some((c, i) => c !== els[i])) this.container.replaceChildren(...els);
  }
}
