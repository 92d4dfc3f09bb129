import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { afterEach, expect, it, vi } from 'vitest';
import { Notifier } from './notifier.js';

/** A pool client whose `SELECT 1` hangs when `silent` (its traffic dropped), answering the rest. */
class FakeClient extends EventEmitter {
  released: boolean | undefined;
  constructor(readonly silent: boolean) {
    super();
  }
  query(text: string): Promise<unknown> {
    if (text === 'SELECT 1' && this.silent) return new Promise(() => undefined);
    return Promise.resolve({ rows: [] });
  }
  release(broken?: boolean): void {
    this.released = broken === true;
  }
}

afterEach(() => {
  vi.useRealTimers();
});

it('listens again on a new connection when the listening one stops answering its probe', async () => {
  vi.useFakeTimers();
  const clients = [new FakeClient(true), new FakeClient(false)];
  let connects = 0;
  const pool = { connect: () => Promise.resolve(clients[connects++]!) } as unknown as pg.Pool;
  const onReconnect = vi.fn();
  const onError = vi.fn();
  const notifier = new Notifier({
    pool,
    channels: ['a'],
    onNotification: () => undefined,
    onReconnect,
    onError,
    healthCheckMs: 1_000,
  });
  await notifier.start();
  expect(connects).toBe(1);

  // The first probe goes out at 1 s and is unanswered at 2 s; the reconnect follows its backoff.
  await vi.advanceTimersByTimeAsync(2_000 + 200);
  expect(clients[0]!.released).toBe(true);
  expect(onError).toHaveBeenCalledWith(
    expect.objectContaining({ message: expect.stringContaining('did not answer a probe') }),
  );
  expect(connects).toBe(2);
  expect(onReconnect).toHaveBeenCalledTimes(1);

  // The new connection answers its probes: it stays.
  await vi.advanceTimersByTimeAsync(5_000);
  expect(connects).toBe(2);
  expect(clients[1]!.released).toBeUndefined();
  await notifier.stop();
  expect(clients[1]!.released).toBe(false);
});

it('gives back a connection that a reconnection under way gets after stop()', async () => {
  vi.useFakeTimers();
  const first = new FakeClient(false);
  const second = new FakeClient(false);
  let handOver: (client: FakeClient) => void = () => undefined;
  const connects = [
    () => Promise.resolve(first),
    () => new Promise<FakeClient>((resolve) => (handOver = resolve)),
  ];
  let calls = 0;
  const pool = { connect: () => connects[calls++]!() } as unknown as pg.Pool;
  const onReconnect = vi.fn();
  const notifier = new Notifier({
    pool,
    channels: ['a'],
    onNotification: () => undefined,
    onReconnect,
    onError: () => undefined,
  });
  await notifier.start();

  // The listening connection drops; the reconnection asks the pool, which is slow to answer.
  first.emit('error', new Error('terminating connection due to administrator command'));
  await vi.advanceTimersByTimeAsync(200);
  expect(calls).toBe(2);
  await notifier.stop();

  // The pool answers after the stop: the connection goes back, closed, and nobody is told.
  handOver(second);
  await vi.advanceTimersByTimeAsync(0);
  expect(second.released).toBe(true);
  expect(onReconnect).not.toHaveBeenCalled();
});
