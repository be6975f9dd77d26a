/**
 * Type-checks one generated TypeScript source strictly, as a program inside the package (so the
 * SDK and its peer types resolve from node_modules), and gives its diagnostics. The SDK tests use
 * it to check rxagent's output against the Agent SDK's own types.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../cli/helpers.js';

export function strictDiagnostics(source: string): readonly ts.Diagnostic[] {
  const dir = mkdtempSync(join(ROOT, '.sdk-types-'));
  try {
    const file = join(dir, 'checked.ts');
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    return ts.getPreEmitDiagnostics(program);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** tsc diagnostics of `<value> satisfies <sdk-tools type>` for each pair (the SDK does not export that file, so it is imported by path). */
export function compileAgainstSdkTools(pairs: ReadonlyArray<readonly [string, unknown]>): string[] {
  const types = [...new Set(pairs.map(([type]) => type))].join(', ');
  const source = [
    `import type { ${types} } from '../node_modules/@anthropic-ai/claude-agent-sdk/sdk-tools.js';`,
    ...pairs.map(([type, value], i) => `export const value${i} = ${JSON.stringify(value)} satisfies ${type};`),
  ].join('\n');
  return strictDiagnostics(source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
