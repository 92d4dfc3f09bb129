/** Where a command writes: stdout for results, stderr for progress and errors. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
  /** Whether stdout is a terminal (colours and live redraws are then welcome). */
  readonly isTTY: boolean;
  /** Overrides whether to colour (default: `isTTY`); `NO_COLOR` wins over both. */
  readonly colour?: boolean;
}

/** The process's own streams. */
export const processOutput: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  isTTY: Boolean(process.stdout.isTTY),
};

/** Renders rows as an aligned plain-text table with a header. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join('\n');
}

/** A date as an ISO string, or `-`. */
export function when(date: Date | null | undefined): string {
  return date ? date.toISOString() : '-';
}
