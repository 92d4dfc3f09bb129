/**
 * The PostgreSQL server's CPU time, read from /proc: what a drain costs the server, beside what
 * it costs the worker's process. Linux only, and only for a server on this machine; elsewhere
 * {@link localPostmaster} says so by returning undefined and the figures are left out.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import type pg from 'pg';

const ticksPerSecond = 100; // USER_HZ on Linux

/** The fields of `/proc/<pid>/stat` after the command name, which may hold spaces. */
function statFields(pid: number | string): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
}

/** utime + stime (+ the reaped children's, when `children`) of a process, in seconds. */
function cpuOf(pid: number, children: boolean): number {
  try {
    // f[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
    const f = statFields(pid);
    const own = f[11]! + f[12]!;
    return (children ? own + f[13]! + f[14]! : own) / ticksPerSecond;
  } catch {
    return 0; // the process ended meanwhile
  }
}

/**
 * The server's CPU so far, in seconds: the postmaster with its ended children (their times reach
 * it when it reaps them), and its live children (backends, autovacuum, the WAL writer).
 */
export function serverCpuSeconds(postmaster: number): number {
  let total = cpuOf(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (statFields(entry)[1] === postmaster) total += cpuOf(Number(entry), true);
    } catch {
      // gone
    }
  }
  return total;
}

/**
 * The process id of the postmaster of the server `client` is connected to, when that server runs
 * on this machine and its processes can be read; undefined otherwise (a remote server, another
 * system than Linux, a role that may not read `data_directory`, an OS user that may not read the
 * server's processes). A remote backend's pid may be the pid of some local process, so the
 * parent found must also have the server's data directory (its real path) as its working
 * directory, as a postmaster does.
 */
export async function localPostmaster(client: pg.ClientBase): Promise<number | undefined> {
  try {
    const r = await client.query<{ pid: number; dir: string }>(
      `SELECT pg_backend_pid() AS pid, current_setting('data_directory') AS dir`,
    );
    const { pid, dir } = r.rows[0]!;
    const postmaster = statFields(pid)[1]!;
    return readlinkSync(`/proc/${postmaster}/cwd`) === realpathSync(dir) ? postmaster : undefined;
  } catch {
    return undefined;
  }
}
