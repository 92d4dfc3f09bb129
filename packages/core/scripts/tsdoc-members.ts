/**
 * Reads the doc comments of the members of a constant object in one of core's sources, e.g. every
 * `StepTrigger.X` in `src/triggers.ts`, so that generated documentation uses the words the code is
 * documented with instead of a second copy of them.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** One member of an `export const X = { ... } as const` object. */
export interface DocumentedMember {
  /** The property name, e.g. `RetryableError`. */
  readonly name: string;
  /** The string value, e.g. `retryable_error`. */
  readonly value: string;
  /** The doc comment on one line, `{@link X}` written as code; empty when there is none. */
  readonly doc: string;
}

/**
 * The members of the object constant `constant` declared in `file`, in declaration order.
 *
 * @throws Error when the file declares no such constant, or a member is not a documented string,
 *   so a generator never silently writes an empty description
 */
export function documentedMembers(file: string, constant: string): DocumentedMember[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const object = findObject(source, constant);
  if (!object) throw new Error(`${file} declares no object constant ${constant}`);
  return object.properties.map((property) => {
    if (!ts.isPropertyAssignment(property) || !ts.isStringLiteral(property.initializer)) {
      throw new Error(
        `${constant} in ${file}: expected only string members, got ${property.getText()}`,
      );
    }
    const name = property.name.getText(source);
    const doc = ts
      .getJSDocCommentsAndTags(property)
      .filter(ts.isJSDoc)
      .map((jsDoc) => ts.getTextOfJSDocComment(jsDoc.comment) ?? '')
      .join(' ');
    if (doc.trim() === '') throw new Error(`${constant}.${name} in ${file} has no doc comment`);
    return { name, value: property.initializer.text, doc: oneLine(doc) };
  });
}

function findObject(
  source: ts.SourceFile,
  constant: string,
): ts.ObjectLiteralExpression | undefined {
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || declaration.name.text !== constant) continue;
      let init = declaration.initializer;
      while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)))
        init = init.expression;
      if (init && ts.isObjectLiteralExpression(init)) return init;
    }
  }
  return undefined;
}

function oneLine(doc: string): string {
  return doc
    .replace(/\{@link\s+([^}\s|]+)(?:\s*\|\s*[^}]*)?\}/g, '`$1`')
    .replace(/\s+/g, ' ')
    .trim();
}
