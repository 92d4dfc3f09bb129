/** Reading the JSON log lines (pino) a fixture process wrote to stderr. */
import type { FixtureProcess } from './processes.js';

/** The parsed pino lines of `fixture`'s stderr (lines that are not JSON are skipped). */
export function logLines(fixture: FixtureProcess): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const text of fixture.stderr().split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(text) as Record<string, unknown>);
    } catch {
      // A line cut by a kill.
    }
  }
  return lines;
}
