import { ValidationError } from '@cyclone/core';

/** The keyset position of a DLQ page's last entry: its end time (as Postgres prints it) and id. */
export interface ExhaustedCursor {
  readonly endedAt: string;
  readonly id: string;
}

/** Encodes a DLQ cursor as the opaque `nextCursor` string. */
export function encodeExhaustedCursor(endedAt: string, id: string): string {
  return Buffer.from(JSON.stringify(['dlq', endedAt, id])).toString('base64url');
}

/**
 * Decodes a DLQ `nextCursor`.
 *
 * @throws ValidationError naming `cursor` when the string is not a cursor of a previous DLQ page
 */
export function decodeExhaustedCursor(cursor: string): ExhaustedCursor {
  try {
    const [tag, endedAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];
    if (tag !== 'dlq' || typeof endedAt !== 'string' || typeof id !== 'string') {
      throw new Error('malformed');
    }
    if (Number.isNaN(Date.parse(endedAt)) || !/^[0-9a-f-]{36}$/i.test(id)) {
      throw new Error('malformed');
    }
    return { endedAt, id };
  } catch (cause) {
    throw new ValidationError(
      'exhausted query',
      [
        {
          path: 'cursor',
          message: `expected the nextCursor of a previous listExhausted page, got ${JSON.stringify(cursor)}`,
        },
      ],
      { cause },
    );
  }
}
