/**
 * What the machine spends: CPU time per process (for the per-request CPU table), whether the machine is quiet enough
 * to start a measurement, and a process's RSS. Linux /proc only; elsewhere the figures read 0.
 */
import fs from 'node:fs';
import type { DataSource } from 'typeorm';

/** The processes whose CPU time each measurement attributes per request (set by bench/stack.ts once they run). */
export const watched: Record<string, number> = {};

/** A process's /proc/<pid>/stat fields after its name (state first), or undefined once it ended. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time (ms) a process has used so far, from /proc/<pid>/stat (utime + stime at Linux's 100 ticks a second). */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * 10 : 0;
}

/**
 * CPU time (ms) of the PostgreSQL server: every running postgres process, and the backends that ended (a pool
 * closing idle connections), which the postmaster has counted in its children's time (cutime + cstime).
 */
export function postgresCpuMs(): number {
  if (!fs.existsSync('/proc')) return 0;
  const postgres = new Set(
    fs.readdirSync('/proc').filter((d) => {
      try {
        return /^\d+$/.test(d) && fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false; // ended meanwhile
      }
    }),
  );
  let total = 0;
  for (const pid of postgres) {
    const fields = statFields(Number(pid));
    if (!fields) continue;
    total += (Number(fields[11]) + Number(fields[12])) * 10;
    if (!postgres.has(fields[1])) total += (Number(fields[13]) + Number(fields[14])) * 10; // the postmaster
  }
  return total;
}

/**
 * CPU time (ms) of the PostgreSQL backends serving the database `db` is connected to: the server's whole time counts
 * what other work on a shared server does too.
 */
export async function databaseCpuMs(db: DataSource): Promise<number> {
  const backends: { pid: number }[] = await db.query(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
  );
  return backends.reduce((total, { pid }) => total + cpuMs(pid), 0);
}

/** CPU time (ms) of every process: the watched ones, the PostgreSQL server, and this one (the load). */
export function cpuSample(): Record<string, number> {
  const own = process.cpuUsage();
  return {
    ...Object.fromEntries(Object.entries(watched).map(([name, pid]) => [name, cpuMs(pid)])),
    PostgreSQL: postgresCpuMs(),
    'benchmark (load)': (own.user + own.system) / 1000,
  };
}

/** Busy and total CPU time of the whole machine so far (Linux /proc/stat), or undefined elsewhere. */
function cpuTimes(): { busy: number; total: number } | undefined {
  if (!fs.existsSync('/proc/stat')) return undefined;
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - ticks[3] - ticks[4], total }; // idle and iowait are not busy
}

/**
 * Waits (5 s at most) until the machine is quiet, under a quarter of its CPU busy over 100 ms, so a measurement does
 * not pay for the work the previous one left behind (Temporal's history and visibility tasks after a burst of starts,
 * the worker's first workflow tasks, PostgreSQL's background writes).
 */
export async function settle(): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const before = cpuTimes();
    await new Promise((r) => setTimeout(r, 100));
    const after = cpuTimes();
    if (!before || !after || (after.busy - before.busy) / Math.max(1, after.total - before.total) < 0.25) return;
  }
}

export function processRss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}
