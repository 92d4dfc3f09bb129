/**
 * Generates `packages/core/STATE_MACHINE.md` from the transition tables in `src/transitions.ts`, so
 * the diagram a reader sees is the table the code enforces.
 *
 *   npx tsx scripts/state-diagram.ts           write the file   (npm run diagram -w @cyclone/core)
 *   npx tsx scripts/state-diagram.ts --check   exit 1 if stale  (npm run verify -w @cyclone/core)
 *
 * The output goes through Prettier with the repository's config, so `prettier --check` agrees with it.
 * docs/states.md, the users' page, comes from the same tables through `states-doc.ts`.
 */
import { fileURLToPath } from 'node:url';
import { isTerminalRun, isTerminalStep, RUN_STATES, STEP_STATES } from '../src/states.js';
import { RUN_TRANSITIONS, STEP_TRANSITIONS, type TransitionRow } from '../src/transitions.js';
import { writeOrCheck } from './generated-file.js';

const TARGET = fileURLToPath(new URL('../STATE_MACHINE.md', import.meta.url));
const REGENERATE = 'npm run diagram -w @cyclone/core';

/**
 * The label of one edge: each trigger once, with `*` when a row for it on this edge is a Cyclone
 * decision (for `operator_retry_reopen` the child row is the reference's, the others are decisions).
 */
function edgeLabel(rows: readonly TransitionRow<string, string>[]): string {
  const triggers = [...new Set(rows.map((r) => r.trigger))];
  const decided = (trigger: string) =>
    rows.some((r) => r.trigger === trigger && r.source === 'decision');
  return triggers.map((t) => (decided(t) ? `${t}*` : t)).join(', ');
}

/**
 * One Mermaid edge per (from, to) pair, labelled with every trigger that makes it. Edges follow
 * state declaration order, not row order, so reordering rows does not churn the diagram.
 */
function mermaid<S extends string>(
  rows: readonly TransitionRow<S, string>[],
  states: readonly S[],
  isTerminal: (state: S) => boolean,
): string {
  const order: (S | null)[] = [null, ...states];
  const edges: string[] = [];
  for (const from of order) {
    for (const to of states) {
      const pair = rows.filter((r) => r.from === from && r.to === to);
      if (pair.length > 0) edges.push(`  ${from ?? '[*]'} --> ${to} : ${edgeLabel(pair)}`);
    }
  }
  const terminal = states.filter(isTerminal);
  return [
    '```mermaid',
    'stateDiagram-v2',
    ...edges,
    '  classDef terminal font-weight:bold,stroke-width:3px',
    `  class ${terminal.join(', ')} terminal`,
    '```',
  ].join('\n');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function code(text: string): string {
  return `\`${text}\``;
}

function stepTable(): string {
  const header = [
    '| Table | From | To | Trigger | Node types | Source | Description |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const rows = STEP_TRANSITIONS.map((row) =>
    [
      row.table,
      row.from === null ? '(inserted)' : code(row.from),
      code(row.to),
      code(row.trigger),
      (row.nodeTypes ?? []).join(', ') || 'all',
      row.source,
      cell(row.description),
    ].join(' | '),
  );
  return [...header, ...rows.map((r) => `| ${r} |`)].join('\n');
}

function runTable(): string {
  const header = [
    '| From | To | Trigger | Source | Description |',
    '| --- | --- | --- | --- | --- |',
  ];
  const rows = RUN_TRANSITIONS.map((row) =>
    [
      row.from === null ? '(inserted)' : code(row.from),
      code(row.to),
      code(row.trigger),
      row.source,
      cell(row.description),
    ].join(' | '),
  );
  return [...header, ...rows.map((r) => `| ${r} |`)].join('\n');
}

function document(): string {
  const decisions = STEP_TRANSITIONS.filter((r) => r.source === 'decision').length;
  return [
    '# Cyclone state machine',
    '',
    `<!-- Generated from packages/core/src/transitions.ts by packages/core/scripts/state-diagram.ts. Do not edit: run \`${REGENERATE}\`. -->`,
    '',
    'Every state change a step or a run may make, with the trigger that makes it. This page is generated',
    'from `STEP_TRANSITIONS` and `RUN_TRANSITIONS` in `@cyclone/core`: the same rows that `proposeStep` /',
    '`proposeRun` check and that the store turns into `UPDATE ... WHERE state = ANY(allowed)`, so the',
    'diagram cannot drift from the code (`npm run verify -w @cyclone/core` fails when it does).',
    '',
    '`[*]` is insertion. Bold states are terminal: only an operator retry leaves them. Edge labels are',
    `trigger names; \`*\` marks a trigger that is a Cyclone decision (for some node types at least)`,
    `rather than a row of the state reference; the tables below list all ${decisions} decision rows.`,
    'The state reference is the specification of run and step states, transitions, triggers and error',
    'kinds that Cyclone implements; it is not kept in this repository, and the rows whose source is',
    "`reference` in `@cyclone/core`'s transition tables transcribe it.",
    '',
    '## Steps',
    '',
    'Task nodes, fan-out item tasks, wait nodes, fan-out nodes and child nodes. The table below says which',
    'node types each row applies to: a child or fan-out node is never claimed, a wait node never runs.',
    '',
    mermaid(STEP_TRANSITIONS, STEP_STATES, isTerminalStep),
    '',
    '## Runs',
    '',
    mermaid(RUN_TRANSITIONS, RUN_STATES, isTerminalRun),
    '',
    '## All step transitions',
    '',
    stepTable(),
    '',
    '## All run transitions',
    '',
    runTable(),
    '',
  ].join('\n');
}

await writeOrCheck({ target: TARGET, text: document(), regenerate: REGENERATE });
