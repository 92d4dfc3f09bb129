/**
 * The option tables of the READMEs against the options types: a table that lacks an option, or
 * lists one the type does not have, fails here. The types are read from the sources with the
 * TypeScript compiler, so an option added to the type without a line in its README is caught.
 * Options tagged `@internal` (test hooks) are left out of both sides. A table may document only
 * what a type adds to another (`enqueue`'s options beyond `submit`'s): `beyond` names that other.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { inRepo } from './support.js';

interface OptionsTable {
  /** The README whose `| option |` table documents the type. */
  readonly readme: string;
  /** The source file that declares the type. */
  readonly source: string;
  /** The exported interface or type alias; `A | B` for the union of their options. */
  readonly typeName: string;
  /** The table's first header cell. @defaultValue `'option'` */
  readonly column?: string;
  /** A type in the same source whose options the table leaves to another table. */
  readonly beyond?: string;
  /** The heading (its start) of the section holding the table, when the page has several. */
  readonly section?: string;
  /** The first column of a table elsewhere on the page whose options this table may leave out. */
  readonly shared?: string;
}

const Connecting = '## Connecting';

const tables: readonly OptionsTable[] = [
  {
    readme: 'packages/worker/README.md',
    source: 'packages/worker/src/options.ts',
    typeName: 'WorkerOptions',
  },
  {
    readme: 'packages/scheduler/README.md',
    source: 'packages/scheduler/src/options.ts',
    typeName: 'SchedulerOptions',
  },
  {
    readme: 'packages/client/README.md',
    source: 'packages/client/src/client.ts',
    typeName: 'ClientOptions',
  },
  {
    readme: 'packages/client/README.md',
    source: 'packages/client/src/options.ts',
    typeName: 'SubmitOptions',
    column: 'submit option',
  },
  {
    readme: 'packages/client/README.md',
    source: 'packages/client/src/options.ts',
    typeName: 'EnqueueOptions',
    column: 'enqueue option',
    beyond: 'SubmitOptions',
  },
  {
    readme: 'docs/configuration.md',
    source: 'packages/client/src/schedule-options.ts',
    typeName: 'ScheduleOptions',
    column: 'schedule option',
  },
  {
    readme: 'docs/configuration.md',
    source: 'packages/client/src/options.ts',
    typeName: 'EnqueueOptions',
    column: 'submit option',
  },
  {
    readme: 'docs/configuration.md',
    source: 'packages/core/src/workflow-options.ts',
    typeName: [
      'TaskNodeOptions',
      'FanOutOptions',
      'WaitSignalOptions',
      'WaitAnyOptions',
      'WaitNOptions',
      'WaitTimerOptions',
      'ChildOptions',
    ].join(' | '),
    section: '## Nodes',
  },
  ...(
    [
      ['## Client', 'packages/client/src/client.ts', 'ClientOptions'],
      ['## Worker', 'packages/worker/src/options.ts', 'WorkerOptions'],
      ['## Scheduler', 'packages/scheduler/src/options.ts', 'SchedulerOptions'],
      ['## HTTP server', 'packages/server/src/server.ts', 'ServerOptions'],
    ] as const
  ).map(([section, source, typeName]) => ({
    readme: 'docs/configuration.md',
    source,
    typeName,
    section,
    shared: Connecting,
  })),
];

const program = ts.createProgram([...new Set(tables.map(({ source }) => inRepo(source)))], {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  customConditions: ['@cyclone/source'],
  noEmit: true,
});
const checker = program.getTypeChecker();

/** The public property names of exported types (`A | B`: of either), as the compiler sees them. */
function optionsOf(source: string, typeNames: string): string[] {
  return [...new Set(typeNames.split(' | ').flatMap((name) => optionsOfOne(source, name)))].sort();
}

function optionsOfOne(source: string, typeName: string): string[] {
  const file = program.getSourceFile(inRepo(source));
  if (file === undefined) throw new Error(`${source} is not in the program`);
  const declaration = file.statements.find(
    (statement): statement is ts.InterfaceDeclaration | ts.TypeAliasDeclaration =>
      (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) &&
      statement.name.text === typeName,
  );
  if (declaration === undefined) throw new Error(`${source} declares no ${typeName}`);
  const type = checker.getTypeAtLocation(declaration.name);
  return checker
    .getPropertiesOfType(type)
    .filter((property) => !property.getJsDocTags(checker).some((tag) => tag.name === 'internal'))
    .map((property) => property.getName())
    .sort();
}

/**
 * The backquoted names in the first column of the README's table headed `column`, in the section
 * whose heading starts with `section` when one is given.
 */
function documentedOptions(readme: string, column: string, section?: string): string[] {
  let lines = readFileSync(inRepo(readme), 'utf8').split('\n');
  if (section !== undefined) {
    const start = lines.findIndex((line) => line.startsWith(section));
    if (start < 0) throw new Error(`${readme} has no section "${section}"`);
    lines = lines.slice(start);
  }
  const header = lines.findIndex((line) => new RegExp(`^\\|\\s*${column}\\s*\\|`).test(line));
  if (header < 0) throw new Error(`${readme} has no table whose first column is "${column}"`);
  const names: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const firstCell = line.split('|')[1] ?? '';
    for (const match of firstCell.matchAll(/`(\w+)`/g)) names.push(match[1]!);
  }
  return names.sort();
}

describe('the option tables of the READMEs', () => {
  for (const { readme, source, typeName, column = 'option', beyond, section, shared } of tables) {
    const which = beyond === undefined ? typeName : `${typeName} beyond ${beyond}`;
    it(`${readme} lists every option of ${which}, and no other`, () => {
      const inherited = beyond === undefined ? [] : optionsOf(source, beyond);
      const declared = optionsOf(source, typeName).filter((name) => !inherited.includes(name));
      expect(declared.length, `${which} has options`).toBeGreaterThan(2);
      const documented = documentedOptions(readme, column, section);
      const elsewhere = shared === undefined ? [] : documentedOptions(readme, 'option', shared);
      expect(
        declared.filter((name) => !documented.includes(name) && !elsewhere.includes(name)),
        `options of ${typeName} missing from ${readme}`,
      ).toEqual([]);
      expect(
        documented.filter((name) => !declared.includes(name)),
        `options in ${readme} that ${typeName} does not have`,
      ).toEqual([]);
    });
  }
});
