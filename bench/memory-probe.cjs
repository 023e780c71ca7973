/**
 * Preloaded into the worker process by bench/worker-memory.ts (NODE_OPTIONS=--require, which, unlike --import, every
 * worker thread loads too): each thread appends its V8 heap figures to MEMORY_PROBE_FILE once a second, so the
 * benchmark tells the main thread's heap from the workflow thread's (Temporal runs workflows in a worker thread
 * with a heap of its own) and both from the native memory (the SDK core's, buffers) that only RSS shows. Once
 * `<MEMORY_PROBE_FILE>.gc` exists, each thread runs one full GC first and marks that sample `collected`: its heap
 * then is what the thread holds, not what it has yet to collect.
 */
const fs = process.getBuiltinModule('node:fs');
const Module = process.getBuiltinModule('node:module');
const v8 = process.getBuiltinModule('node:v8');
const vm = process.getBuiltinModule('node:vm');
const { isMainThread, threadId } = process.getBuiltinModule('node:worker_threads');

const file = process.env.MEMORY_PROBE_FILE;

/** `workflow`: the thread whose entry point is the SDK's workflow thread script (other threads: tsx's loader, ...). */
const threadName = () => {
  if (isMainThread) return 'main';
  return Object.keys(Module._cache).some((p) => p.endsWith('workflow-worker-thread.js'))
    ? 'workflow'
    : `thread ${threadId}`;
};

let collected = false;
if (file) {
  setInterval(() => {
    const collect = !collected && fs.existsSync(`${file}.gc`);
    if (collect) {
      v8.setFlagsFromString('--expose-gc');
      vm.runInNewContext('gc')();
      collected = true;
    }
    const heap = v8.getHeapStatistics();
    const sample = {
      t: Date.now(),
      thread: threadName(),
      used: heap.used_heap_size,
      total: heap.total_heap_size,
      ...(collect ? { collected } : {}),
    };
    fs.appendFileSync(file, `${JSON.stringify(sample)}\n`);
  }, 1000).unref();
}
