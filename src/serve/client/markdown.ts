/**
 * Markdown to HTML for the model's text (marked: a maintained CommonMark/GFM parser, instead of
 * our own). The model's text is untrusted, so raw HTML in it is shown as text, never parsed;
 * links keep only an allowlist of schemes; images become their alt text (the page loads nothing
 * from elsewhere, and its CSP would block it anyway).
 */
import { Marked } from 'marked';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const SAFE_LINK = /^(https?:|mailto:|#|\/(?!\/))/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    link({ href, tokens }) {
      if (SAFE_LINK.test(href.trim())) return false;
      return this.parser.parseInline(tokens);
    },
    image({ text }) {
      return escapeHtml(text);
    },
  },
});

export function renderMarkdown(text: string): string {
  return marked.parse(text, { async: false });
}
