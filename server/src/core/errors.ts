/** What a caught value says, for a log line, an error envelope or a diagnostic. */

/** An Error's message, or any other thrown value as a string. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
