/**
 * The names an entry point exports (values and types), read by the TypeScript checker from the
 * source: what a user of that entry point can import.
 */
import ts from 'typescript';

export function exportNamesOf(entryFiles: readonly string[]): ReadonlyMap<string, readonly string[]> {
  const program = ts.createProgram([...entryFiles], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, readonly string[]>();
  for (const file of entryFiles) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${file} is not a module`);
    out.set(file, checker.getExportsOfModule(symbol).map((s) => s.name).sort());
  }
  return out;
}
