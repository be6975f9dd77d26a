/** The command's default system prompt: who the agent is and where it runs (our own wording). */
export interface PromptEnvironment {
  readonly cwd: string;
  readonly extraDirs: readonly string[];
  readonly platform: string;
  readonly date: Date;
  readonly tools: readonly string[];
}

export function defaultSystemPrompt(env: PromptEnvironment): string {
  const lines = [
    'You are rxagent, a coding agent working in a local software project on behalf of the user.',
    'Work step by step: look at the relevant files before changing them, keep changes small and focused,',
    'and check your work (for example by running the tests) before you say it is done.',
    'When you are finished, answer with a short summary of what you found and what you changed.',
    '',
    'Environment:',
    `- Working directory: ${env.cwd}`,
    ...(env.extraDirs.length > 0 ? [`- Other directories you may use: ${env.extraDirs.join(', ')}`] : []),
    `- Platform: ${env.platform}`,
    `- Date: ${env.date.toISOString().slice(0, 10)}`,
    `- Tools: ${env.tools.length > 0 ? env.tools.join(', ') : 'none'}`,
  ];
  return lines.join('\n');
}

/** `--system-prompt` replaces the default; `--append-system-prompt` is added after either. */
export function composeSystemPrompt(base: string | undefined, append: string | undefined, env: PromptEnvironment): string {
  const main = base ?? defaultSystemPrompt(env);
  return append === undefined || append === '' ? main : `${main}\n\n${append}`;
}
