/** The sessions of one server: created on request (new or resumed), listed, closed together. */
import type { PreparedRun } from '../cli/buildRun.js';
import type { PermissionAnswer, PermissionRequest } from '../permissions/createPermissionPolicy.js';
import type { McpElicitationHandler } from '../mcp/elicitation.js';
import { createElicitationChannel } from '../ui/elicitationChannel.js';
import { createPermissionChannel } from '../ui/permissionChannel.js';
import { ServeSession } from './session.js';

/** Builds the run of a session: `resume` names a stored session to continue. */
export type OpenRun = (
  request: {
    readonly resume?: string;
    readonly ask: (request: PermissionRequest) => Promise<PermissionAnswer>;
    /** MCP servers' questions go to the page (a form), answered by an `elicitation` command. */
    readonly onElicitation: McpElicitationHandler;
    readonly onWarning: (message: string) => void;
  },
) => Promise<PreparedRun>;

export class SessionHub {
  private readonly sessions = new Map<string, ServeSession>();
  private closing = false;

  constructor(
    private readonly openRun: OpenRun,
    private readonly options: { readonly maxLogEvents?: number } = {},
  ) {}

  async create(resume?: string): Promise<ServeSession> {
    if (this.closing) throw new Error('the server is stopping');
    if (resume !== undefined) {
      const open = this.sessions.get(resume);
      if (open) return open;
    }
    const permissions = createPermissionChannel();
    const elicitations = createElicitationChannel();
    const warnings: string[] = [];
    let session: ServeSession | undefined;
    const run = await this.openRun({
      ...(resume === undefined ? {} : { resume }),
      ask: permissions.ask,
      onElicitation: elicitations.ask,
      onWarning: (message) => (session ? session.warn(message) : warnings.push(message)),
    });
    session = new ServeSession(run, permissions, Date.now, this.options.maxLogEvents, elicitations);
    warnings.forEach((w) => session!.warn(w));
    this.sessions.set(session.sessionId, session);
    return session;
  }

  get(sessionId: string): ServeSession | undefined {
    return this.sessions.get(sessionId);
  }

  /** Newest first. */
  list(): ServeSession[] {
    return [...this.sessions.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Ends every running turn (terminals and transcripts kept) and releases every run. */
  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.sessions.values()].map((s) => s.close()));
  }
}
