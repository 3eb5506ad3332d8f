// Headless Chromium for the HTML view's tests and benchmark: Debian's
// /usr/bin/chromium (or $CHROMIUM) driven by playwright-core, which never
// downloads a browser of its own. A page opened with openPage records the
// console errors, uncaught exceptions and every network request besides the
// document itself, so a test can assert the page is self-contained; openUrl
// does the same for a page a test server answers.

import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Flags that work on a shared CI machine with no GPU, no sandbox rights and no network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

/** How long a launch may take on a loaded two-core machine. */
const LAUNCH_TIMEOUT_MS = 60_000;

/** Undefined when the browser is installed, else why a browser test cannot run. */
export function missingChromium(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install -y chromium)`;
}

/** A headless Chromium with a new, empty profile (playwright gives each launch its own --user-data-dir). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: LAUNCH_TIMEOUT_MS });
}

export interface OpenedPage {
  readonly page: Page;
  /** The file's URL. */
  readonly url: string;
  /** Console errors and uncaught exceptions, in order. */
  readonly errors: string[];
  /** URLs the page requested besides the file itself. */
  readonly requests: string[];
}

/** A new tab of `browser` at the given size, recording for `file` (not opened yet: goto `url`). */
export async function preparePage(browser: Browser, file: string, viewport = DEFAULT_VIEWPORT): Promise<OpenedPage> {
  return recording(await browser.newPage({ viewport }), pathToFileURL(file).href);
}

/**
 * Opens a page a server answers (`url`, http:) in a new tab that sends
 * `headers` (say a bearer token) with every request, recording like openPage,
 * and waits for the load event.
 */
export async function openUrl(
  browser: Browser,
  url: string,
  headers: Record<string, string> = {},
  viewport = DEFAULT_VIEWPORT,
): Promise<OpenedPage> {
  const opened = recording(await browser.newPage({ viewport, extraHTTPHeaders: headers }), url);
  await opened.page.goto(url, { waitUntil: 'load' });
  return opened;
}

/** Records `page`'s console errors, uncaught exceptions and requests for anything but `url`. */
function recording(page: Page, url: string): OpenedPage {
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => void (r.url() !== url && requests.push(r.url())));
  return { page, url, errors, requests };
}

/** Opens `file` from disk in a new tab of `browser`, waiting for the load event. */
export async function openPage(browser: Browser, file: string, viewport = DEFAULT_VIEWPORT): Promise<OpenedPage> {
  const opened = await preparePage(browser, file, viewport);
  await opened.page.goto(opened.url, { waitUntil: 'load' });
  return opened;
}

/** Waits until the topology view has drawn: its script sets `data-state="ready"` on the root element once laid out. */
export async function waitUntilDrawn(page: Page, opts?: { timeout?: number; polling?: number | 'raf' }): Promise<void> {
  await page.waitForFunction(() => document.documentElement.dataset.state === 'ready', undefined, opts);
}
