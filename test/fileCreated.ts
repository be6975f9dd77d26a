/**
 * Resolves once `file` exists in `dir`: a command's own sign that it runs (it touches a marker
 * file). Waits for the event, never for a duration; the caller's test timeout bounds it.
 */
import { existsSync, watch } from 'node:fs';
import { join } from 'node:path';

export function fileCreated(dir: string, file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => {
      if (existsSync(join(dir, file))) {
        watcher.close();
        resolve();
      }
    });
    // It may exist already (before the watch began).
    if (existsSync(join(dir, file))) {
      watcher.close();
      resolve();
    }
  });
}
