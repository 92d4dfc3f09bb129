import { describe, expect, it } from 'vitest';
import { commandCatalogue } from '../src/commands/catalogue.js';
import { runMain } from './support/use-cli.js';

const commands = commandCatalogue.flatMap((entry) =>
  'commands' in entry
    ? entry.commands.map((c) => ({ words: [entry.name, c.name], spec: c }))
    : [{ words: [entry.name], spec: entry }],
);

describe('every command', () => {
  it.each(commands.map((c) => [c.words.join(' '), c] as const))(
    '%s has --help with examples, --json and the database flags',
    async (_name, { words, spec }) => {
      const help = await runMain([...words, '--help']);
      expect(help.code).toBe(0);
      expect(help.out).toContain('Examples:');
      expect(help.out).toContain(`$ cyclone ${words.join(' ')}`);
      expect(help.out).toContain('--json');
      if (spec.database !== false) expect(help.out).toContain('--database-url <url>');
    },
  );

  it('lists explain, runs watch and serve', async () => {
    const help = await runMain(['--help']);
    expect(help.out).toMatch(/^\s+explain /m);
    expect((await runMain(['runs', '--help'])).out).toMatch(/^\s+watch /m);
    expect(help.out).toMatch(/^\s+serve /m);
  });
});
