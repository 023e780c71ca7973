import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { waitFor } from '../../src/dev/processes';
import { Api, call, startApi } from '../support/harness';
import { chromePath } from '../support/browser';
import { newProject, subscribe } from '../support/projects';
import { Receiver } from '../support/receiver';

const DP = '/deposit-processor';
const ARTIFACTS = path.resolve(__dirname, '../artifacts');
let api: Api;
let browser: Browser;
let demo: http.Server;
let receiver: Receiver;

beforeAll(async () => {
  api = await startApi();
  browser = await chromium.launch({ executablePath: chromePath(), args: ['--no-sandbox'] });
  receiver = await new Receiver([]).start();
});
afterAll(async () => {
  await browser?.close();
  demo?.close();
  await receiver?.close();
  await api.close();
});

/** The integrator's page: it embeds nextAction.url in an iframe, as the spec says to present it. */
async function demoPage(url: string): Promise<string> {
  demo = http
    .createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>
      <h1>Verify your identity</h1>
      <iframe id="kyc" src="${url}" width="520" height="420" title="verification"></iframe>
    </body></html>`);
    })
    .listen(0, '127.0.0.1');
  await once(demo, 'listening');
  return `http://127.0.0.1:${(demo.address() as AddressInfo).port}/`;
}

test('in a real browser: the hosted sandbox page in an iframe, approved by a click, then completed and the webhook delivered', async () => {
  const p = await newProject(api, 'browser');
  await subscribe(p, receiver, ['verification-updated']);
  const minted = await call(p, 'POST', `${DP}/compliance/sessions`, {
    body: { customerId: 'cus-browser', email: 'ada@example.com' },
  });
  const bearer = { authorization: `Bearer ${minted.json.token}` };
  const started = await call({ ...p, apiKey: '' }, 'POST', `${DP}/compliance/verification`, {
    body: { currency: 'EUR' },
    headers: bearer,
  });
  expect(started.json).toMatchObject({ status: 'pending', nextAction: { type: 'hosted', presentation: 'iframe' } });

  const page = await browser.newPage();
  await page.goto(await demoPage(started.json.nextAction.url));
  const frame = page.frameLocator('#kyc');
  await frame.getByRole('heading', { name: 'Sandbox verification' }).waitFor();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const shot = path.join(ARTIFACTS, 'sandbox-hosted-page.png');
  await page.screenshot({ path: shot });
  expect(fs.statSync(shot).size).toBeGreaterThan(1000);

  await frame.getByRole('button', { name: 'Approve' }).click();
  await frame.getByText('Decision recorded: approved').waitFor();

  await waitFor(
    'completed',
    async () =>
      (
        await call({ ...p, apiKey: '' }, 'POST', `${DP}/compliance/verification`, {
          body: { currency: 'EUR' },
          headers: bearer,
        })
      ).json.status === 'completed',
    30_000,
  );
  await waitFor(
    'webhook',
    async () => [...receiver.accepted.values()].some((d) => d.json.data.status === 'completed'),
    30_000,
  );
  const delivered = [...receiver.accepted.values()].find((d) => d.json.data.status === 'completed')!;
  expect(delivered.verifiedWith).toHaveLength(1);
  expect(delivered.json.data).toMatchObject({ customerId: 'cus-browser', currency: 'EUR', provider: 'sandbox' });
  await page.close();
});
