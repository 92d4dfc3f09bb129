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

/** Options of {@link table}. */
export interface TableOptions {
  /** Fit every line to this many characters: the widest columns are cut (ending in `…`). */
  readonly width?: number;
  /** The columns that may be cut (free text such as an error); by default any column. */
  readonly shrink?: readonly number[];
}

// Narrower than this a cut column is unreadable: the line is left longer instead.
const MinCutWidth = 6;

/** Column widths that fit `width`: the widest cuttable column gives up a character until they fit. */
function fitWidths(widths: number[], width: number, shrink: readonly number[]): number[] {
  const fitted = [...widths];
  let total = fitted.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  while (total > width) {
    const widest = shrink.reduce(
      (best, i) => (fitted[i]! > (fitted[best] ?? -1) ? i : best),
      shrink[0]!,
    );
    if (fitted[widest]! <= MinCutWidth) break;
    fitted[widest]! -= 1;
    total -= 1;
  }
  return fitted;
}

/** Renders rows as an aligned plain-text table with a header, fitted to `width` when given. */
export function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const natural = headers.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)),
  );
  const widths =
    options.width === undefined
      ? natural
      : fitWidths(natural, options.width, options.shrink ?? headers.map((_, i) => i));
  const cell = (c: string, i: number) =>
    c.length > widths[i]! ? `${c.slice(0, widths[i]! - 1)}…` : c;
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? cell(c, i) : cell(c, i).padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join('\n');
}

/** A date as an ISO string, or `-`. */
export function when(date: Date | null | undefined): string {
  return date ? date.toISOString() : '-';
}
