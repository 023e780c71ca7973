/**
 * What the machine spends: CPU time per process (for the per-request CPU table), whether the machine is quiet enough
 * to start a measurement, and a process's RSS. Linux /proc only; elsewhere the figures read 0.
 */
import fs from 'node:fs';

/** The processes whose CPU time each measurement attributes per request (set by bench/stack.ts once they run). */
export const watched: Record<string, number> = {};

/** CPU time (ms) a process has used so far, from /proc/<pid>/stat (utime + stime at Linux's 100 ticks a second). */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** CPU time (ms) of every process: the watched ones, all PostgreSQL server processes, and this one (the load). */
export function cpuSample(): Record<string, number> {
  const postgres = fs.existsSync('/proc')
    ? fs
        .readdirSync('/proc')
        .filter((d) => /^\d+$/.test(d))
        .reduce((sum, d) => {
          try {
            return fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'postgres' ? sum + cpuMs(Number(d)) : sum;
          } catch {
            return sum; // ended meanwhile
          }
        }, 0)
    : 0;
  const own = process.cpuUsage();
  return {
    ...Object.fromEntries(Object.entries(watched).map(([name, pid]) => [name, cpuMs(pid)])),
    PostgreSQL: postgres,
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
