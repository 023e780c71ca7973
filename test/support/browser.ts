import fs from 'node:fs';
import path from 'node:path';

/** Headless Chromium from the system (Debian's `chromium`): CHROME_PATH, else the first browser on PATH. Never downloaded. */
export function chromePath(): string {
  if (process.env.CHROME_PATH) return process.env.CHROME_PATH;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
      const candidate = path.join(dir, name);
      if (fs.existsSync(candidate)) return candidate;
    }
  }
  throw new Error("No Chromium found: install Debian's chromium package (.ci/run does) or set CHROME_PATH");
}
