/**
 * `get_hooks_listing` (the SDK's `SDKControlGetHooksListingResponse`): the hooks of the session
 * by event, each with its source, as a host's read-only hooks page shows them. Each settings
 * file is read again per source (the run holds them merged); the host's own callbacks
 * (`initialize`'s hooks) are the session's. rxagent has no managed policy, plugins, safe or
 * bare mode, so the policy flags are all false. Text is one line with control characters
 * shown as escapes, so a hostile command cannot redraw the host's page.
 */
import { loadSettings, type SettingSourceName } from '../../hooks/settings.js';
import { HOOK_EVENTS, type HookEvent, type HooksConfig, type HookSpec } from '../../hooks/types.js';

/** What each event is for (our words), and whether its groups' matchers select anything. */
const EVENTS: Readonly<Record<HookEvent, { readonly summary: string; readonly supportsMatcher: boolean }>> = {
  PreToolUse: { summary: 'Before a tool runs; may allow, deny or rewrite the call', supportsMatcher: true },
  PostToolUse: { summary: 'After a tool ran; may add context or block', supportsMatcher: true },
  PostToolBatch: { summary: 'After a batch of tool calls finished', supportsMatcher: false },
  Stop: { summary: 'When the agent is about to end its turn; may keep it going', supportsMatcher: false },
  UserPromptSubmit: { summary: 'When a prompt is submitted; may add context or block it', supportsMatcher: false },
  SessionStart: { summary: 'When a session starts, resumes or is cleared', supportsMatcher: false },
  SessionEnd: { summary: 'When a session ends', supportsMatcher: false },
  Notification: { summary: 'When rxagent needs attention (a permission question)', supportsMatcher: false },
  PermissionRequest: { summary: 'Where a permission question would be asked; may answer it', supportsMatcher: true },
  PreCompact: { summary: 'Before the conversation is compacted (matcher: auto or manual)', supportsMatcher: true },
  SubagentStart: { summary: 'When a subagent starts (matcher: its type)', supportsMatcher: true },
  SubagentStop: { summary: 'When a subagent is about to end (matcher: its type)', supportsMatcher: true },
};

const SOURCES: ReadonlyArray<readonly [SettingSourceName, string, string]> = [
  ['user', 'userSettings', 'User settings'],
  ['project', 'projectSettings', 'Project settings'],
  ['local', 'localSettings', 'Local settings'],
];

/** One line, with every control character as an escape. */
export function revealed(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

interface Row {
  readonly event: HookEvent;
  readonly matcher: string;
  readonly source: string;
  readonly sourceLabel: string;
  readonly type: string;
  readonly displayText: string;
  readonly commandText: string;
  readonly contentLabel: string;
  readonly timeout?: number;
}

function rowsOf(hooks: HooksConfig, source: string, sourceLabel: string): Row[] {
  return HOOK_EVENTS.flatMap((event) =>
    (hooks[event] ?? []).flatMap((group) =>
      group.hooks.map((hook: HookSpec) => {
        const text = revealed(hook.type === 'command' ? hook.command : (hook.name ?? 'SDK host callback'));
        return {
          event,
          matcher: revealed(group.matcher ?? ''),
          source,
          sourceLabel,
          type: hook.type,
          displayText: text,
          commandText: text,
          contentLabel: hook.type === 'command' ? 'Command' : 'Callback',
          ...(hook.timeout === undefined ? {} : { timeout: hook.timeout }),
        };
      }),
    ),
  );
}

export async function hooksListing(inputs: {
  readonly cwd: string;
  readonly homeDir: string;
  readonly settingsFile?: string;
  readonly sources?: readonly SettingSourceName[];
  /** The host's callbacks (`initialize`'s hooks). */
  readonly hostHooks?: HooksConfig;
}): Promise<Record<string, unknown>> {
  const wanted = inputs.sources ?? ['user', 'project', 'local'];
  const rows: Row[] = [];
  for (const [name, source, label] of SOURCES) {
    if (wanted.includes(name)) rows.push(...rowsOf((await loadSettings({ cwd: inputs.cwd, homeDir: inputs.homeDir, sources: [name] })).hooks, source, label));
  }
  if (inputs.settingsFile !== undefined) {
    rows.push(...rowsOf((await loadSettings({ cwd: inputs.cwd, homeDir: inputs.homeDir, sources: [], settingsFile: inputs.settingsFile })).hooks, 'flagSettings', 'Flag settings (--settings)'));
  }
  if (inputs.hostHooks) rows.push(...rowsOf(inputs.hostHooks, 'sessionHook', 'SDK host (this session)'));
  // Events in lifecycle order, each event's rows together.
  const ordered = HOOK_EVENTS.flatMap((event) => rows.filter((r) => r.event === event));
  return {
    events: HOOK_EVENTS.filter((event) => ordered.some((r) => r.event === event)).map((name) => ({ name, ...EVENTS[name], hookCount: ordered.filter((r) => r.event === name).length })),
    hooks: ordered,
    eventCatalog: HOOK_EVENTS.map((name) => ({ name, ...EVENTS[name] })),
    policy: { disabledByPolicy: false, managedOnly: false, pluginOnly: false, allDisabled: false, policyHookCount: 0 },
  };
}
