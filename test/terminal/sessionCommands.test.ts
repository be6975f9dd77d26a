/**
 * The commands that change what the conversation runs on, in a real terminal: /model switches the
 * model and keeps the conversation, /permissions adds a rule that the next call obeys at once,
 * /resume picks an earlier session from a list and goes on with its history; Ctrl-L clears.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { lastUserText, READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

describe.skipIf(!hasTmux())('session commands in tmux', () => {
  test('/model, /permissions, /resume and Ctrl-L', { timeout: 300_000 }, async () => {
    const script = (request: MessagesRequest): ScriptedResponse => {
      const prompt = lastUserText(request);
      if (prompt === 'make a file') {
        return { kind: 'message', blocks: [{ type: 'tool_use', id: `toolu_${request.messages.length}`, name: 'Bash', input: { command: 'touch made.txt' } }] };
      }
      return { kind: 'message', blocks: [{ type: 'text', text: `Answer to: ${prompt || '(tool result)'} (${request.model})` }] };
    };
    const scenario = await open({ script });
    const { term, server, box } = scenario;
    await term.waitFor(READY);
    term.submit('remember the word kiwi');
    await term.waitFor(`Answer to: remember the word kiwi (${DEFAULT_MODEL})`);

    term.submit('/model claude-haiku-4-5');
    await term.waitFor('Model set to claude-haiku-4-5; the conversation goes on.');
    await term.waitFor('claude-haiku-4-5 · default mode');
    term.submit('what word?');
    await term.waitFor('Answer to: what word? (claude-haiku-4-5)');
    expect(server.requests[1]!.body!.model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(server.requests[1]!.body!.messages)).toContain('remember the word kiwi');

    term.submit('/permissions allow Bash(touch made.txt)');
    await term.waitFor('Added allow rule Bash(touch made.txt)');
    const file = JSON.parse(readFileSync(join(box.cwd, '.claude', 'settings.local.json'), 'utf8')) as { permissions: { allow: string[] } };
    expect(file.permissions.allow).toEqual(['Bash(touch made.txt)']);
    term.submit('make a file');
    await term.waitFor('ok Bash');
    expect(term.screen()).not.toContain('needs your approval');
    term.submit('/permissions');
    await term.waitFor(/Allow:\n {2}Bash\(touch made\.txt\)/);

    term.submit('/clear');
    await term.waitFor('(new conversation, session ');
    term.submit('/resume');
    await term.waitFor('Resume which session?');
    const list = term.screen();
    expect(list).toMatch(/❯ 1\. \d{4}-\d\d-\d\d \d\d:\d\d {2}remember the word kiwi/);
    term.keys('Enter');
    await term.waitFor(/\(resumed session [0-9a-f-]{36}: \d+ messages\)/);
    term.submit('and now?');
    await term.waitFor('Answer to: and now? (claude-haiku-4-5)');
    expect(JSON.stringify(server.requests.at(-1)!.body!.messages)).toContain('remember the word kiwi');

    term.keys('C-l');
    await term.waitFor((s) => !s.includes('remember the word kiwi') && /❯\s*\n─/.test(s));
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);
  });
});
