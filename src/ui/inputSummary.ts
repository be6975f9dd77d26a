/**
 * One line that tells a person which call this is: the input field they recognize it by
 * (command, path, pattern, url, the subagent's description), else compact JSON; cut to `max`.
 */
const TELLING_KEYS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt', 'subagent_type'] as const;

export function inputSummary(input: unknown, max = 120): string {
  let line = '';
  if (typeof input === 'object' && input !== null) {
    const rec = input as Record<string, unknown>;
    const key = TELLING_KEYS.find((k) => typeof rec[k] === 'string' && rec[k] !== '');
    line = key ? String(rec[key]) : JSON.stringify(input);
  } else if (input !== undefined) {
    line = JSON.stringify(input);
  }
  line = line.replace(/\s+/g, ' ').trim();
  if (line === '{}') return '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
