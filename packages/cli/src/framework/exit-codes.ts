/** The exit codes of `cyclone`, as the public contract fixes them. */
export const ExitCode = {
  Ok: 0,
  /** The operation was refused (the reason is printed), or it failed. */
  Refused: 1,
  /** The command was called wrongly: unknown command or flag, missing or extra argument. */
  Usage: 2,
  /** The run, step, schedule or limit named does not exist. */
  NotFound: 3,
  /** The database could not be reached. */
  DatabaseUnreachable: 4,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
