/**
 * The interactive `/mcp`: without arguments the servers' report (mcpReport.ts); `/mcp login
 * <server>` signs in to a remote server with OAuth, as Claude Code's /mcp "Authenticate" does:
 * the authorization URL is shown and opened in the browser, the view waits for the browser to
 * come back (Esc stops the wait), then the server is connected again and its state shown.
 */
import { openBrowser } from '../../mcp/oauth/openBrowser.js';
import type { CommandContext } from './commandHandlers.js';
import { mcpReport } from './mcpReport.js';

const say = (ctx: CommandContext, text: string) => ctx.frontEnd.print(`${text.replace(/\n+$/, '')}\n`);

export async function mcpCommand(args: string, ctx: CommandContext): Promise<void> {
  const run = ctx.session.run;
  const words = args.trim().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return say(ctx, mcpReport(run.mcpServers ?? [], run.mcpToolNames ?? [], ctx.paint, ctx.frontEnd.columns()));
  const [action, name, ...rest] = words;
  if (action !== 'login' || name === undefined || rest.length > 0 || !run.mcpSignIn) return say(ctx, 'Usage: /mcp (the servers) or /mcp login <server> (sign in to a remote server)');
  try {
    const status = await run.mcpSignIn(name, {
      signal: ctx.signal,
      onAuthorizationUrl: (url) => {
        say(ctx, `Open this URL to sign in to the MCP server "${name}" (Esc stops waiting):\n${url.href}`);
        openBrowser(url.href, ctx.env, (why) => say(ctx, ctx.paint('dim', `(${why})`)));
      },
    });
    say(ctx, status.status === 'connected' ? ctx.paint('green', `Signed in to "${name}"; it is connected.`) : ctx.paint('yellow', `Signed in to "${name}", but it is ${status.status}${status.error ? `: ${status.error}` : ''}.`));
  } catch (error) {
    say(ctx, ctx.paint('red', `Sign-in to "${name}" failed: ${(error as Error).message}`));
  }
}
