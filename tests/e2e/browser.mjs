// Helpers for the tests that drive a real browser: a headless Chromium
// started with playwright-core (the system's browser: nothing is
// downloaded), full-page screenshots, and waiting for a condition with a
// deadline.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

// The browser of Debian's chromium package, unless CHROMIUM_PATH names
// another.
const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

// launchChromium starts a headless Chromium that makes no network request
// of its own: the machines that run these tests have no internet.
export function launchChromium() {
  return chromium.launch({
    executablePath,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

// screenshots returns shot(page, name), which saves a full-page PNG of
// the page as name.png in dir, emptied first so that it holds only this
// run's pictures.
export function screenshots(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return (page, name) => page.screenshot({ path: join(dir, name + '.png'), fullPage: true, animations: 'disabled' });
}

// until calls check every interval ms until it returns a truthy value,
// which it returns, or throws `timed out after N ms: ${message}` with the
// last error check threw, if any.
export async function until(check, { timeout = 15_000, interval = 200, message }) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeout} ms: ${message}` + (last ? `; last error: ${last.message}` : ''), { cause: last });
    }
    await new Promise((ok) => setTimeout(ok, interval));
  }
}
