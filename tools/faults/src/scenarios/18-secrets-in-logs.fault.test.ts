/**
 * Scenario 18: secrets in payloads and error messages (`password=...`, a connection string with a
 * password, a bearer token) never reach the logs, at any level, by default: a worker and a
 * scheduler log at `trace` into a buffer while runs carry secrets in their input, their output and
 * what their handlers throw; their own connection string carries a password too (a role's, which
 * the server checks where it asks for passwords). With `logErrorMessages: true` the message is
 * logged, redacted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Scheduler } from '@cyclone/scheduler';
import { createTestRole, type TestRole } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { capturingLogger, useInProcessWorkers } from '../support/in-process-worker.js';

const db = useFaultDatabase();
const workers = useInProcessWorkers(() => db.url);

const secrets = ['hunter2-secret', 's3cr3t-in-url', 'tok-abcdef123456', 'conn-pass-9f8e'];
const secretText =
  `password=${secrets[0]} postgres://admin:${secrets[1]}@db.example.com:5432/prod ` +
  `Authorization: Bearer ${secrets[2]}`;

/** A role whose password is the last secret: the worker's and the scheduler's URL carries it. */
let role: TestRole;
beforeAll(async () => {
  role = await createTestRole(db.url, { password: secrets[3]! });
  await db.query(`GRANT USAGE ON SCHEMA public TO ${role.name}`);
  await db.query(
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role.name}`,
  );
  await db.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role.name}`);
});
afterAll(() => role?.drop());

function leaked(text: string): string[] {
  return secrets.filter((secret) => text.includes(secret));
}

it('keeps secrets in payloads, errors and URLs out of the logs at level trace', async () => {
  const results: Record<string, number> = {};
  for (const logErrorMessages of [false, true]) {
    const capture = capturingLogger('trace');
    const scheduler = new Scheduler({
      connectionString: role.url,
      interval: '100ms',
      retention: false,
      logger: capture.logger,
    });
    await scheduler.start();
    const worker = await workers.start({
      connectionString: role.url,
      logger: capture.logger,
      logErrorMessages,
      handlers: {
        'secret.returns': () => ({ echoed: secretText }),
        'secret.throws': () => {
          throw new Error(`could not connect: ${secretText}`);
        },
        'secret.rejects': () =>
          Promise.reject(Object.assign(new Error(secretText), { detail: secretText })),
      },
    });
    const runs = await Promise.all([
      db.client.enqueue('secret.returns', { config: secretText }),
      db.client.enqueue('secret.throws', { config: secretText }, { maxAttempts: 2 }),
      db.client.enqueue('secret.rejects', { config: secretText }, { maxAttempts: 1 }),
    ]);
    for (const { runId } of runs) await db.client.wait(runId, { timeout: '30s' });
    await worker.stop({ timeout: '1s' });
    await scheduler.stop();

    const text = capture.text();
    const lines = text.split('\n').filter(Boolean).length;
    results[logErrorMessages ? 'lines_with_messages' : 'lines_default'] = lines;
    results[logErrorMessages ? 'leaks_with_messages' : 'leaks_default'] = leaked(text).length;
    expect(lines).toBeGreaterThan(0);
    expect(leaked(text)).toEqual([]);
    // The stored error keeps the whole message: the database is where operators look.
    const [stored] = await db.query<{ error: string }>(
      `SELECT error FROM cyclone_steps WHERE run_id = $1`,
      [runs[1].runId],
    );
    expect(stored!.error).toContain(secrets[0]);
  }
  // pino itself is not the filter: a line with a secret written through it would show.
  const probe = capturingLogger('trace');
  probe.logger.info({ secret: secrets[0] }, 'probe');
  expect(leaked(probe.text())).toEqual([secrets[0]]);
  reportFigures('secrets', { level: 'trace', secrets: secrets.length, ...results });
});
