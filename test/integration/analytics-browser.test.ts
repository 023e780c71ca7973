import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { Api, call, startApi } from '../support/harness';
import { chromePath } from '../support/browser';
import { newProject } from '../support/projects';
import { simulate } from '../support/widget-sessions';

let api: Api;
let browser: Browser;
beforeAll(async () => {
  api = await startApi();
  browser = await chromium.launch({ executablePath: chromePath(), args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
  await api.close();
});

test('in a real browser: the report page draws the funnel chart with the ingested data', async () => {
  const p = await newProject(api, 'report');
  const token = (await call(p, 'POST', '/analytics/ingest-token', { body: {} })).json.token;
  const t0 = Date.now() - 3 * 86_400_000;
  const sim = simulate(t0, 'browser');
  const res = await call({ ...api, apiKey: '' }, 'POST', '/analytics/events', {
    body: { events: sim.events.slice(0, 500) },
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.json.accepted).toBe(Math.min(500, sim.events.length));
  await call({ ...api, apiKey: '' }, 'POST', '/analytics/events', {
    body: { events: sim.events.slice(500) },
    headers: { authorization: `Bearer ${token}` },
  });

  const link = (await call(p, 'POST', '/analytics/report-link', { body: { modal: 'deposit' } })).json.url;
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(link);
  await page.waitForSelector('body[data-rendered="true"]');
  // The chart exists and holds the funnel's numbers (Chart.js loaded from this origin, no CDN).
  const drawn = await page.evaluate(() => {
    const chart = (
      globalThis as unknown as {
        Chart: { getChart(id: string): { data: { labels: string[]; datasets: { data: number[] }[] } } };
      }
    ).Chart.getChart('funnel');
    return { labels: chart.data.labels, sessions: chart.data.datasets[0].data };
  });
  const expected = sim.expected.steps as { step: string; sessions: number }[];
  expect(drawn).toEqual({ labels: expected.map((s) => s.step), sessions: expected.map((s) => s.sessions) });
  expect(errors).toEqual([]);
  const dir = path.resolve(__dirname, '../artifacts');
  fs.mkdirSync(dir, { recursive: true });
  const shot = path.join(dir, 'analytics-report.png');
  await page.screenshot({ path: shot, fullPage: true });
  expect(fs.statSync(shot).size).toBeGreaterThan(10_000);
  await page.close();
});
