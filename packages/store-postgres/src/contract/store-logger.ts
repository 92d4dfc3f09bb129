/**
 * Where the store reports what it cannot hand back to a caller: a follow-up that failed after the
 * operation it follows had committed (settling a run, for one). Structured: the fields first, then
 * a sentence. A pino logger fits as it is; so does any logger with this method.
 */
export interface StoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * The logger a store uses when it is given none: a process warning (`process.emitWarning`, code
 * `CYCLONE_STORE`), which Node prints to stderr unless warnings are silenced.
 */
export const processWarningLogger: StoreLogger = {
  warn(fields, message) {
    const { err, ...rest } = fields;
    const cause = err instanceof Error ? `: ${err.message}` : '';
    process.emitWarning(`${message}${cause}`, {
      code: 'CYCLONE_STORE',
      detail: JSON.stringify(rest),
    });
  },
};
