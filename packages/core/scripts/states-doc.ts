/**
 * Generates `docs/states.md`, the users' reference of every state, transition, trigger, error kind
 * and sub-state label, from core's tables (`src/transitions.ts`, `src/triggers.ts`,
 * `src/error-kind.ts`, `src/states.ts`, `src/step-labels.ts`) and the doc comments on their
 * constants, so the page says exactly what the code enforces.
 *
 *   npx tsx scripts/states-doc.ts           write the file   (npm run states-doc -w @cyclone/core)
 *   npx tsx scripts/states-doc.ts --check   exit 1 if stale  (part of npm run verify -w @cyclone/core)
 *
 * It also checks that the CLI shows exactly the labels core names, so the page cannot list a label
 * the CLI never prints or miss one it does.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DISCARD_REASONS, ERROR_KIND_TERMINAL, type ErrorKind } from '../src/error-kind.js';
import { isTerminalRun, isTerminalStep, STEP_STATES } from '../src/states.js';
import { STEP_LABELS } from '../src/step-labels.js';
import {
  NODE_TYPES,
  RUN_TRANSITIONS,
  STEP_TRANSITIONS,
  type TransitionRow,
} from '../src/transitions.js';
import { writeOrCheck } from './generated-file.js';
import { documentedMembers, type DocumentedMember } from './tsdoc-members.js';

const TARGET = fileURLToPath(new URL('../../../docs/states.md', import.meta.url));
const SOURCE = (name: string) => fileURLToPath(new URL(`../src/${name}`, import.meta.url));
const REGENERATE = 'npm run states-doc -w @cyclone/core';
const DECISIONS = '[decision](decisions.md)';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function code(text: string): string {
  return `\`${text}\``;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

function state(value: string | null): string {
  return value === null ? '(inserted)' : code(value);
}

function nodeTypes(row: TransitionRow<string, string>): string {
  const types = row.nodeTypes ?? NODE_TYPES;
  return types.length === NODE_TYPES.length ? 'all' : types.map(code).join(', ');
}

function source(row: TransitionRow<string, string>): string {
  return row.source === 'decision' ? DECISIONS : 'reference';
}

/** The distinct `from -> to` moves rows of a trigger make, in row order. */
function moves(rows: readonly TransitionRow<string, string>[], trigger: string): string {
  const pairs = rows
    .filter((row) => row.trigger === trigger)
    .map((row) => `${state(row.from)} → ${code(row.to)}`);
  return [...new Set(pairs)].join(', ');
}

function stateTable(
  members: readonly DocumentedMember[],
  constant: string,
  isTerminal: (value: string) => boolean,
): string {
  return table(
    ['Value', 'Constant', 'Terminal', 'Meaning'],
    members.map((m) => [
      code(m.value),
      code(`${constant}.${m.name}`),
      isTerminal(m.value) ? 'yes' : 'no',
      m.doc,
    ]),
  );
}

function triggerTable(
  members: readonly DocumentedMember[],
  constant: string,
  rows: readonly TransitionRow<string, string>[],
): string {
  return table(
    ['Trigger', 'Constant', 'Meaning', 'Moves'],
    members.map((m) => [code(m.value), code(`${constant}.${m.name}`), m.doc, moves(rows, m.value)]),
  );
}

function errorKindTable(members: readonly DocumentedMember[]): string {
  const discardable: readonly string[] = DISCARD_REASONS;
  return table(
    ['Value', 'Constant', 'Written when', 'Terminal', 'On a discarded step'],
    members.map((m) => [
      code(m.value),
      code(`ErrorKind.${m.name}`),
      m.doc,
      ERROR_KIND_TERMINAL[m.value as ErrorKind],
      discardable.includes(m.value) ? 'yes' : 'no',
    ]),
  );
}

function labelTable(): string {
  return table(
    ['Label', 'Shown on', 'When'],
    STEP_LABELS.map((rule) => [code(rule.label), rule.states.map(code).join(', '), rule.when]),
  );
}

/** One table per from-state (insertion first), in state declaration order. */
function stepTransitions(): string {
  const sections: string[] = [];
  for (const from of [null, ...STEP_STATES]) {
    const rows = STEP_TRANSITIONS.filter((row) => row.from === from);
    if (rows.length === 0) continue;
    sections.push(
      `### From ${state(from)}`,
      '',
      table(
        ['To', 'Trigger', 'Node types', 'Table', 'Source', 'Description'],
        rows.map((row) => [
          code(row.to),
          code(row.trigger),
          nodeTypes(row),
          row.table,
          source(row),
          row.description,
        ]),
      ),
      '',
    );
  }
  return sections.join('\n');
}

function runTransitions(): string {
  return table(
    ['From', 'To', 'Trigger', 'Source', 'Description'],
    RUN_TRANSITIONS.map((row) => [
      state(row.from),
      code(row.to),
      code(row.trigger),
      source(row),
      row.description,
    ]),
  );
}

/**
 * Fails when the CLI's label function returns a label core does not name, or core names one the
 * CLI never returns: the page documents what an operator actually sees.
 */
/**
 * Checks that the label functions of src/step-labels.ts (`stepLabel`, `eventLabels`, which the CLI
 * and `explain` show) give every label `STEP_LABELS` documents, and no other.
 */
function checkLabelFunctions(): void {
  const shown = new Set(
    [
      ...readFileSync(SOURCE('step-labels.ts'), 'utf8').matchAll(/return StepLabel\.([A-Za-z]+)/g),
    ].map((m) => m[1]),
  );
  const named = new Set<string>(STEP_LABELS.map((rule) => rule.label));
  const missing = [...shown].filter((label) => !named.has(label!));
  const unused = [...named].filter((label) => !shown.has(label));
  if (missing.length > 0 || unused.length > 0) {
    throw new Error(
      `stepLabel / eventLabels and STEP_LABELS in src/step-labels.ts disagree: ` +
        `shown but not named: [${missing.join(', ')}], named but not shown: [${unused.join(', ')}]`,
    );
  }
}

function document(): string {
  const runStates = documentedMembers(SOURCE('states.ts'), 'RunState');
  const stepStates = documentedMembers(SOURCE('states.ts'), 'StepState');
  const stepTriggers = documentedMembers(SOURCE('triggers.ts'), 'StepTrigger');
  const runTriggers = documentedMembers(SOURCE('triggers.ts'), 'RunTrigger');
  const errorKinds = documentedMembers(SOURCE('error-kind.ts'), 'ErrorKind');
  const decisions = [...STEP_TRANSITIONS, ...RUN_TRANSITIONS].filter(
    (row) => row.source === 'decision',
  ).length;
  return [
    '# States, transitions and error kinds',
    '',
    `<!-- Generated from @cyclone/core (src/states.ts, src/transitions.ts, src/triggers.ts, src/error-kind.ts, src/step-labels.ts) by packages/core/scripts/states-doc.ts. Do not edit: run \`${REGENERATE}\`. -->`,
    '',
    'Every state a run or a step can be in, every move between them with the trigger that makes it,',
    'every error kind, and the sub-state labels the CLI shows. Each value is exactly what the database',
    "stores (`SELECT * FROM cyclone_steps WHERE state = 'discarded'` works as written) and what the",
    'CLI prints. The page is generated from the tables `@cyclone/core` enforces, so it cannot drift from',
    'the engine (`npm run verify -w @cyclone/core` fails when it does). The',
    '[state machine](../packages/core/STATE_MACHINE.md) draws the same tables as diagrams.',
    '',
    "A transition is either a row of Cyclone's state reference (the specification of run and step",
    'states, transitions, triggers and error kinds that Cyclone implements; it is not kept in this',
    "repository, and the `reference` rows of `@cyclone/core`'s transition tables transcribe it) or a",
    `[decision](decisions.md) Cyclone made where the reference is silent (${decisions} rows).`,
    'A terminal state is left only by an operator retry.',
    '',
    '## Run states',
    '',
    'There is no pending run state: a run and all of its steps are inserted in one transaction, so a',
    'run starts `running`.',
    '',
    stateTable(runStates, 'RunState', (v) => isTerminalRun(v as never)),
    '',
    '## Step states',
    '',
    'A step is a task node, a fan-out item task, a wait node, a fan-out node or a child node. One',
    'constant differs from its value: `StepState.Exhausted` is stored and shown as `discarded`.',
    '',
    stateTable(stepStates, 'StepState', (v) => isTerminalStep(v as never)),
    '',
    '## Triggers',
    '',
    'A trigger is why a step or a run moves. Every write names its trigger, and a move is accepted',
    'only when a row of the tables below allows that move for that trigger.',
    '',
    '### Step triggers',
    '',
    triggerTable(stepTriggers, 'StepTrigger', STEP_TRANSITIONS),
    '',
    '### Run triggers',
    '',
    triggerTable(runTriggers, 'RunTrigger', RUN_TRANSITIONS),
    '',
    '## Error kinds',
    '',
    'The error kind classifies the last error recorded on a step (`StepStatus.errorKind`, and on',
    'the run that a discard failed). It is a separate axis from the state: a later success does not',
    'clear it; an operator retry does. "Terminal" says whether recording the kind ends the step:',
    '`both` means retried while attempts remain and discarded on the last one. Only the kinds marked',
    'in the last column can stand on a discarded step; they are what `cyclone dlq --reason` accepts.',
    '',
    errorKindTable(errorKinds),
    '',
    '## Sub-state labels',
    '',
    "Labels the CLI shows beside a step's state. They are derived when the step is shown, never",
    'stored, and never change what happens to the step. The first label that applies is shown.',
    '',
    labelTable(),
    '',
    '## Step transitions',
    '',
    'Node types: `task` (a task node or standalone job), `item` (a fan-out item task), `fan_out`,',
    '`child`, `wait_signal`, `wait_any`, `wait_n`, `wait_timer`. "Table" is the table of the state',
    'reference the row belongs to (or extends).',
    '',
    stepTransitions(),
    '## Run transitions',
    '',
    runTransitions(),
    '',
  ].join('\n');
}

checkLabelFunctions();
await writeOrCheck({ target: TARGET, text: document(), regenerate: REGENERATE });
