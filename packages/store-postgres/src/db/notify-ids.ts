/**
 * The SQL of a CTE body that sends the `id`s of `rows` (a subquery or CTE name with an `id`
 * column) to `channel`, comma-separated, in chunks of 150 (5,550 bytes of UUIDs), so a payload
 * stays under NOTIFY's 8000-byte limit however many rows a statement moved. No row, no notice.
 */
export function notifyIdsInChunks(channel: string, rows: string): string {
  return `
  SELECT pg_notify('${channel}', string_agg(id::text, ','))
  FROM (SELECT id, (row_number() OVER () - 1) / 150 AS chunk FROM ${rows}) r
  GROUP BY chunk`;
}
