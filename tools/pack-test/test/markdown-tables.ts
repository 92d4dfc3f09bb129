/**
 * Reading the Markdown tables of the docs, for the tests that hold the docs to the code.
 */

/** One table: its header cells and its rows of cells, trimmed. */
export interface MarkdownTable {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** Every table of a Markdown text, in order. */
export function markdownTables(text: string): MarkdownTable[] {
  const lines = text.split('\n');
  const tables: MarkdownTable[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.startsWith('|') || !/^\|[\s:|-]+\|$/.test(lines[i + 1]!.trim())) continue;
    const header = cells(lines[i]!);
    const rows: string[][] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j]!.startsWith('|'); j++) rows.push(cells(lines[j]!));
    tables.push({ header, rows });
    i = j;
  }
  return tables;
}

/** The table whose first header cell is `firstColumn`; throws when the text has none. */
export function tableStartingWith(text: string, firstColumn: string, where: string): MarkdownTable {
  const table = markdownTables(text).find((candidate) => candidate.header[0] === firstColumn);
  if (table === undefined)
    throw new Error(`${where} has no table whose first column is "${firstColumn}"`);
  return table;
}

/** The backquoted names in a cell: `` `a`, `b` `` gives `['a', 'b']`. */
export function backquoted(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
}
