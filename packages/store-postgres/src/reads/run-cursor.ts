import { ValidationError } from '@cyclone/core';

/** The keyset position of a page's last run. */
export interface RunCursor {
  /** `created_at` as Postgres prints it (full microsecond precision). */
  readonly createdAt: string;
  readonly id: string;
}

/** Encodes a cursor as the opaque `nextCursor` string. */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

/**
 * Decodes a `nextCursor` string.
 *
 * @throws ValidationError when the string is not a cursor this store made
 */
export function decodeCursor(cursor: string): RunCursor {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [
      unknown,
      unknown,
    ];
    if (typeof createdAt !== 'string' || typeof id !== 'string') throw new Error('malformed');
    return { createdAt, id };
  } catch (cause) {
    throw new ValidationError(
      'run query',
      [
        {
          path: 'cursor',
          message: `expected a nextCursor of a previous page, got ${JSON.stringify(cursor)}`,
        },
      ],
      { cause },
    );
  }
}
