/**
 * Opens a sign-in URL in the person's browser: `$BROWSER <url>` when set, else the desktop's
 * opener (`xdg-open`, `open` on macOS). The URL is one argument, never through a shell. A
 * failure to open only says so: the caller has printed the URL as well.
 */
import { spawn } from 'node:child_process';

export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>, onFailure: (message: string) => void): void {
  const browser = env['BROWSER'];
  const command = browser !== undefined && browser !== '' ? browser : process.platform === 'darwin' ? 'open' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.once('error', () => onFailure(`could not start ${command}; open the URL yourself`));
  child.unref();
}
