/**
 * Our own wording for the summarization request and for the summary message that replaces the
 * compacted history. (Never the reference's texts.)
 */

export const COMPACT_SYSTEM_PROMPT = [
  'You write hand-over notes for a coding agent whose conversation has grown too long to keep.',
  'You will receive a transcript of the earlier part of the session. Write a summary that lets the agent continue the work without the transcript.',
  'Do not call tools and do not continue the task yourself: answer with the summary only, as plain text.',
  '',
  'Cover, in this order:',
  '1. The user\'s goals and every explicit request, constraint or preference, quoting short instructions exactly.',
  '2. What has been done: files read, created or changed (with paths), commands run and their outcomes, decisions taken and why.',
  '3. Errors met and how they were resolved, or that they are still open.',
  '4. Facts learned that later steps depend on: names, signatures, versions, configuration values, test results.',
  '5. The work in progress at the point the transcript ends, and the next steps that were planned.',
  '',
  'Be specific and complete rather than short; leave out pleasantries and anything that no longer matters.',
].join('\n');

export const COMPACT_USER_INSTRUCTION =
  'Summarize the session transcript above following your instructions. Reply with the summary only.';

export function transcriptIntro(): string {
  return 'Transcript of the earlier part of the session:\n\n';
}

/** The text that opens the compacted view, in a user message. */
export function summaryMessageText(summary: string): string {
  return (
    'This session continues from an earlier conversation that outgrew the context window. ' +
    'Its earlier part was condensed into the summary below; the most recent messages follow verbatim. ' +
    'Carry on from where the work stands without asking the user to repeat anything.\n\n' +
    `<summary>\n${summary.trim()}\n</summary>`
  );
}
