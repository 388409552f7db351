/**
 * Headless Chromium for the explorer's browser tests: Debian's /usr/bin/chromium (installed by
 * .ci/run) driven by playwright-core, a fresh user-data dir per launch, no network services of
 * Chromium's own (so every request the page makes is one the explorer asked for). The launched
 * browser records console errors, uncaught exceptions and requests to any origin not allowed.
 * openPage, searchFor and waitForRoute take the page to a route and wait until the app has drawn it;
 * readTable and kvRow read a drawn table back as text and link targets.
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
interface DomElement {
  dataset: Record<string, string | undefined>
  innerText: string
  tagName: string
  parentElement: DomElement | null
  getAttribute(name: string): string | null
  querySelectorAll(selector: string): ArrayLike<DomElement>
}
declare const document: { getElementById(id: string): DomElement | null; querySelector(selector: string): DomElement | null }
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
 * `expected` (default: `hash`; the app marks it in main's data-page); returns main's text. The page
 * already showing `hash` is reloaded (setting the same hash fires no hashchange), so it is drawn anew.
 */
export async function openPage(page: Page, base: string, hash: string, expected = hash): Promise<string> {
  await page
    .evaluate(() => {
      const main = document.getElementById('main')
      if (main !== null) main.dataset.page = ''
    })
    .catch(() => undefined)
  if (!page.url().startsWith(base)) await page.goto(`${base}${hash}`)
  else {
    const shown = await page.evaluate((h) => {
      if (location.hash === h) return true
      location.hash = h
      return false
    }, hash)
    if (shown) await page.reload()
  }
  await page.waitForFunction((want) => document.getElementById('main')?.dataset.page === want, expected.replace(/^#/, ''), {
    timeout: PAGE_TIMEOUT_MS,
  })
  return page.locator('main').innerText()
}

/** searchFor: types `q` into the search box, presses Enter and waits for the route `expected`; returns main's text. */
export async function searchFor(page: Page, q: string, expected: string): Promise<string> {
  await page.evaluate(() => {
    const main = document.getElementById('main')
    if (main !== null) main.dataset.page = ''
  })
  await page.fill('#q', q)
  await page.press('#q', 'Enter')
  return waitForRoute(page, expected, `search "${q}"`)
}

/**
 * waitForRoute: waits until the page has rendered the route `expected` (main's data-page, without
 * the #), after a click or a search took it there; returns main's text.
 */
export async function waitForRoute(page: Page, expected: string, what = 'the page'): Promise<string> {
  try {
    await page.waitForFunction((want) => document.getElementById('main')?.dataset.page === want, expected, { timeout: PAGE_TIMEOUT_MS })
  } catch (err) {
    throw new Error(`${what} did not reach ${expected}: at ${page.url()}, showing ${await page.locator('main').innerText()}`, { cause: err })
  }
  return page.locator('main').innerText()
}

/** One row of a rendered table: each cell's text (th and td) and the hrefs of its links, in order. */
export interface TableRow {
  cells: string[]
  links: string[]
}

/** A rendered table: its column headers (thead; none for a key-value table) and its other rows. */
export interface RenderedTable {
  head: string[]
  rows: TableRow[]
}

/**
 * readTable: the first table matching `selector` (the app draws lists as `table.list`, key-value
 * blocks as `table.kv`) as text and link targets, so a test can compare it with JSON-RPC answers;
 * undefined when the page has none.
 */
export async function readTable(page: Page, selector: string): Promise<RenderedTable | undefined> {
  return page.evaluate((sel) => {
    const table = document.querySelector(sel)
    if (table === null) return undefined
    const texts = (list: ArrayLike<DomElement>) => Array.from(list, (e) => e.innerText.trim())
    const rows = Array.from(table.querySelectorAll('tr')).filter((tr) => tr.parentElement?.tagName !== 'THEAD')
    return {
      head: texts(table.querySelectorAll('thead th')),
      rows: rows.map((tr) => ({
        cells: texts(tr.querySelectorAll('th, td')),
        links: Array.from(tr.querySelectorAll('a[href]'), (a) => a.getAttribute('href') ?? ''),
      })),
    }
  }, selector)
}

/** kvRow: the row of a rendered key-value table (`table.kv`) whose key is `key`; throws when there is none. */
export function kvRow(table: RenderedTable | undefined, key: string): TableRow {
  const row = table?.rows.find((r) => r.cells[0] === key)
  if (row === undefined) throw new Error(`no "${key}" row in ${JSON.stringify(table?.rows)}`)
  return row
}
