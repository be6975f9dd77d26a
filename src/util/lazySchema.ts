/**
 * A value (in practice a zod schema) built at its first use instead of at module load.
 *
 * Building a zod schema is real work (every `z.object` runs its initialisers), and the modules
 * the command loads build dozens of schemas that a plain `rxagent -p` never parses with: the
 * settings file's, the agent file's, the MCP config's (issue 20 §3). Wrapping the construction
 * moves that cost to the first parse; the schema built is the same object every call returns.
 */
export function lazySchema<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
