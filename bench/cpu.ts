/**
 * What the machine spends: CPU time per process (for the per-request CPU table), whether the machine is quiet enough
 * to start a measurement, and a process's RSS. Linux /proc only; elsewhere the figures read 0.
 */
import fs from 'node:fs';

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

/** The database whose backends are PostgreSQL's part of each measurement (set by bench/stack.ts). */
export const watchedDatabase: { name?: string } = {};

/** The last CPU time read of each backend of the watched database: one that ended keeps what it had used by then. */
const backends = new Map<string, number>();

/**
 * CPU time (ms) of the PostgreSQL server: every running postgres process, and the backends that ended (a pool
 * closing idle connections), which the postmaster has counted in its children's time (cutime + cstime). With
 * `database`, only the backends serving it (their process titles name it): the server may be shared with other work
 * on the machine (other databases, their background writes), which the figures should not count.
 */
export function postgresCpuMs(database?: string): number {
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
  if (database) {
    for (const pid of postgres) {
      try {
        const title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (title.includes(` ${database} `)) backends.set(pid, cpuMs(Number(pid)) || (backends.get(pid) ?? 0));
      } catch {
        // ended meanwhile: its last reading stays
      }
    }
    return [...backends.values()].reduce((a, b) => a + b, 0);
  }
  let total = 0;
  for (const pid of postgres) {
    const fields = statFields(Number(pid));
    if (!fields) continue;
    total += (Number(fields[11]) + Number(fields[12])) * 10;
    if (!postgres.has(fields[1])) total += (Number(fields[13]) + Number(fields[14])) * 10; // the postmaster
  }
  return total;
}

/** CPU time (ms) of every process: the watched ones, the watched database's PostgreSQL backends, and this one (the load). */
export function cpuSample(): Record<string, number> {
  const own = process.cpuUsage();
  return {
    ...Object.fromEntries(Object.entries(watched).map(([name, pid]) => [name, cpuMs(pid)])),
    PostgreSQL: postgresCpuMs(watchedDatabase.name),
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
