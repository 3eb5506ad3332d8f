// The one way to turn a caught value into text and to wrap it with context.
// Anything can be thrown; only Errors have a message, so everything else is
// printed with String().

/** The message of a caught value: `err.message` for Errors, `String(err)` otherwise. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** `<prefix>: <message of err>`, keeping `err` as the cause for whoever logs the chain. */
export function wrapError(prefix: string, err: unknown): Error {
  return new Error(`${prefix}: ${errorMessage(err)}`, { cause: err });
}
