import { ErrorKind, ValidationError, type ValidationIssue } from '@cyclone/core';
import type { ExhaustedQuery, ExhaustedReason, RedriveQuery } from '@cyclone/store-postgres';
import { parseLookupName } from './options.js';

/** The four reasons a discarded step can carry: what the DLQ filters accept. */
export const ExhaustedReasons: readonly ExhaustedReason[] = Object.freeze([
  ErrorKind.Retryable,
  ErrorKind.Permanent,
  ErrorKind.Deadline,
  ErrorKind.ReclaimLimit,
]);

/** Largest DLQ page or redrive batch. */
export const MaxExhaustedLimit = 1000;

function checkReason(reason: unknown, issues: ValidationIssue[]): void {
  if (reason === undefined || ExhaustedReasons.includes(reason as ExhaustedReason)) return;
  issues.push({
    path: 'reason',
    message: `expected one of ${ExhaustedReasons.join(', ')}, got ${JSON.stringify(reason)}`,
  });
}

function checkLimit(limit: unknown, issues: ValidationIssue[]): void {
  if (limit === undefined) return;
  if (
    typeof limit === 'number' &&
    Number.isInteger(limit) &&
    limit >= 1 &&
    limit <= MaxExhaustedLimit
  ) {
    return;
  }
  issues.push({
    path: 'limit',
    message: `expected an integer from 1 to ${MaxExhaustedLimit}, got ${JSON.stringify(limit)}`,
  });
}

/**
 * Validates a DLQ query. The cursor is checked by the store, which made it.
 *
 * @throws ValidationError naming each bad field (reason, workflow, limit)
 */
export function parseExhaustedQuery(query: ExhaustedQuery): ExhaustedQuery {
  const issues: ValidationIssue[] = [];
  checkReason(query.reason, issues);
  checkLimit(query.limit, issues);
  if (query.cursor !== undefined && typeof query.cursor !== 'string') {
    issues.push({ path: 'cursor', message: 'expected the nextCursor string of a previous page' });
  }
  if (issues.length > 0) throw new ValidationError('exhausted query', issues);
  if (query.workflow !== undefined) parseLookupName(query.workflow, 'exhausted query', 'workflow');
  return query;
}

/**
 * Validates a redrive query.
 *
 * @throws ValidationError naming each bad field (reason, workflow, before, limit)
 */
export function parseRedriveQuery(query: RedriveQuery): RedriveQuery {
  const issues: ValidationIssue[] = [];
  checkReason(query.reason, issues);
  checkLimit(query.limit, issues);
  if (
    query.before !== undefined &&
    !(query.before instanceof Date && !Number.isNaN(query.before.getTime()))
  ) {
    issues.push({ path: 'before', message: `expected a valid Date, got ${String(query.before)}` });
  }
  if (issues.length > 0) throw new ValidationError('redrive query', issues);
  if (query.workflow !== undefined) parseLookupName(query.workflow, 'redrive query', 'workflow');
  return query;
}
