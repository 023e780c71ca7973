/**
 * Crash points for the durability tests: with NODE_ENV=test and FAULT_INJECTION naming the point, the process kills
 * itself there (SIGKILL: no cleanup, as in a power cut). A no-op everywhere else.
 */
export function crashPoint(
  name:
    | 'submit-after-commit'
    | 'withdrawal-after-commit'
    | 'ingest-after-commit'
    | 'relayer-after-fill-sent'
    | 'relayer-after-claim-sent',
): void {
  if (process.env.NODE_ENV === 'test' && (process.env.FAULT_INJECTION ?? '').split(',').includes(name))
    process.kill(process.pid, 'SIGKILL');
}
