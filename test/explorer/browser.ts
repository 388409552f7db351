/**
 * Headless Chromium for the explorer's browser tests: Debian's /usr/bin/chromium (installed by
 * .ci/run) driven by playwright-core, a fresh user-data dir per launch, no network services of
 * Chromium's own (so every request the page makes is one the explorer asked for). The launched
 * browser records console errors, uncaught exceptions and requests to any origin not allowed.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
/** How long a page may take to render. */
export const PAGE_TIMEOUT_MS = 15_000

/** The page's globals, as the functions run inside the browser see them (the test project has no DOM lib). */
declare const document: { getElementById(id: string): { dataset: Record<string, string | undefined> } | null }
declare const location: { hash: string }

export interface Browser {
  context: BrowserContext
  page: Page
  /** Console errors and uncaught exceptions so far. */
  errors: string[]
  /** Requests to an origin outside `origins`. */
  foreign: string[]
  close(): Promise<void>
}

/** launchBrowser: Chromium with one page; requests to any origin but `origins` are recorded in `foreign`. */
export async function launchBrowser(origins: () => string[]): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`)
  const userDataDir = mkdtempSync(join(tmpdir(), 'ibex-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  })
  const page = context.pages()[0] ?? (await context.newPage())
  const errors: string[] = []
  const foreign: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`${m.text()} @ ${m.location().url}`)
  })
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`))
  context.on('request', (r) => {
    if (!origins().includes(new URL(r.url()).origin)) foreign.push(r.url())
  })
  return {
    context,
    page,
    errors,
    foreign,
    async close() {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}

/**
 * openPage: shows `hash` of the explorer at `base` and waits until the page has rendered the route
 * `expected` (default: `hash`; the app marks it in main's data-page); returns main's text.
 */
export async function openPage(page: Page, base: string, hash: string, expected = hash): Promise<string> {
  await page
    .evaluate(() => {
      const main = document.getElementById('main')
      if (main !== null) main.dataset.page = ''
    })
    .catch(() => undefined)
  if (page.url().startsWith(base))
    await page.evaluate((h) => {
      location.hash = h
    }, hash)
  else await page.goto(`${base}${hash}`)
  await page.waitForFunction((want) => document.getElementById('main')?.dataset.page === want, expected.replace(/^#/, ''), {
    timeout: PAGE_TIMEOUT_MS,
  })
  return page.locator('main').innerText()
}
