import type { Funnel } from './store';

/** Text safe inside HTML text and quoted attributes (the five characters that could end or open markup). */
export const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The funnel as a page: no build step, Chart.js from this API's own origin, the data inline as JSON (escaped so it
 * cannot close the script element).
 */
export function reportPage(f: Funnel, chartUrl: string): string {
  const data = JSON.stringify(f).replace(/</g, '\\u003c');
  const rows = (items: { family: string; count: number }[]) =>
    items.map((i) => `<tr><td>${escape(i.family)}</td><td>${i.count}</td></tr>`).join('') ||
    '<tr><td colspan="2">none</td></tr>';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Widget funnel: ${escape(f.modal)}</title>
  <style>
    body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1a1a2e; }
    .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 1rem; }
    .card { border: 1px solid #ddd; border-radius: 10px; padding: 1rem; }
    table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #eee; }
    #chart-box { max-width: 900px; height: 360px; }
  </style>
  <script src="${escape(chartUrl)}"></script>
</head>
<body>
  <h1>Widget funnel: ${escape(f.modal)} modal</h1>
  <p>${escape(f.from)} to ${escape(f.to)}${f.fundingMethod ? `, funding method ${escape(f.fundingMethod)}` : ''}: <strong>${f.sessions}</strong> sessions entered the funnel,
     <strong>${f.outcomes.completed ?? 0}</strong> completed in the widget. Time to complete p50 ${f.timeToComplete.p50Seconds ?? '–'} s, p90 ${f.timeToComplete.p90Seconds ?? '–'} s.</p>
  <div id="chart-box"><canvas id="funnel" aria-label="sessions per step"></canvas></div>
  <div class="grid">
    <div class="card"><h2>Steps</h2><table><tr><th>step</th><th>sessions</th><th>conversion</th><th>drop-off</th></tr>
      ${f.steps.map((s) => `<tr><td>${escape(s.step)}</td><td>${s.sessions}</td><td>${(s.conversion * 100).toFixed(1)}%</td><td>${s.dropOff}</td></tr>`).join('')}</table></div>
    <div class="card"><h2>Failures by reason family</h2><table>${rows(f.failures)}</table></div>
    <div class="card"><h2>Friction by reason family</h2><table>${rows(f.friction)}</table></div>
    <div class="card"><h2>Deposits: widget vs processed</h2><p>The widget's outcome is not proof of fulfilment; the processed outcome is what the deposit processor reported.</p>
      <table><tr><th>widget</th><th>processed</th><th>deposits</th></tr>${f.deposits.byOutcome.map((d) => `<tr><td>${escape(d.widget)}</td><td>${escape(d.processed)}</td><td>${d.count}</td></tr>`).join('') || '<tr><td colspan="3">none observed</td></tr>'}</table></div>
  </div>
  <script id="data" type="application/json">${data}</script>
  <script>
    const f = JSON.parse(document.getElementById('data').textContent);
    new Chart(document.getElementById('funnel'), {
      type: 'bar',
      data: {
        labels: f.steps.map((s) => s.step),
        datasets: [
          { label: 'sessions reaching the step', data: f.steps.map((s) => s.sessions), backgroundColor: '#4f6bed' },
          { label: 'dropped off at the step', data: f.steps.map((s) => s.dropOff), backgroundColor: '#ef8354' },
        ],
      },
      options: { animation: false, maintainAspectRatio: false, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
    });
    document.body.dataset.rendered = 'true';
  </script>
</body>
</html>`;
}
