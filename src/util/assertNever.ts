/** Exhaustiveness check for discriminated unions: a new variant becomes a compile error here. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
