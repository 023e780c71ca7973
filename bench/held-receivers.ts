/**
 * Receivers that hold each webhook `delayMs` then answer 200, in a process of their own (forked by bench/webhooks.ts),
 * so that their bursts of arrivals and answers do not delay the clock of the measured receiver in the bench process.
 * argv: <count> <delayMs>. Sends {urls} once listening, then {open} (requests held) in answer to any message.
 */
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

async function main(): Promise<void> {
  const [count, delayMs] = process.argv.slice(2).map(Number);
  let open = 0;
  const servers = Array.from({ length: count }, () =>
    http
      .createServer((req, res) => {
        open++;
        res.on('close', () => open--);
        req.resume();
        req.on('end', () => setTimeout(() => res.end('{"ok":true}'), delayMs));
      })
      .listen(0, '127.0.0.1'),
  );
  await Promise.all(servers.map((s) => once(s, 'listening')));
  process.send!({ urls: servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`) });
  process.on('message', () => process.send!({ open }));
  process.on('disconnect', () => process.exit(0));
}

void main();
