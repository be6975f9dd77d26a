/**
 * The file the cli benches spawn: whatever package.json's `bin` names for `rxagent` (since session
 * 15 dist/src/cli/main.cjs), so they measure the command users run rather than a path of their own.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The absolute path of package.json's `bin.rxagent`, read from the checkout these benches are built in (dist/bench/ → ../../). */
export function packageBin(): string {
  const root = new URL('../../', import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { name?: string; bin?: { rxagent?: string } | string };
  if (pkg.name !== 'rxagent') throw new Error(`${fileURLToPath(root)}package.json is not rxagent's: the benches run from dist/bench`);
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.rxagent;
  if (bin === undefined) throw new Error("package.json names no bin for rxagent");
  return fileURLToPath(new URL(bin, root));
}
