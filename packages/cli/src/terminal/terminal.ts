/** The width output is fitted to: the terminal's columns, else 100 (a pipe, a test). */
export function terminalWidth(stream: { columns?: number } = process.stdout): number {
  const columns = stream.columns;
  return typeof columns === 'number' && columns >= 20 ? columns : 100;
}

/** `text` cut to `width` characters, ending with `…` when cut. */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** `text` broken into lines of at most `width` characters, at spaces where it can be. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word;
    while (line.length > width) {
      lines.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  if (line) lines.push(line);
  return lines;
}
