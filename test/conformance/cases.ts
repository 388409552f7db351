/**
 * The execution-apis conformance cases (`tests/<method>/<case>.io`) and how the reference runner
 * judges them (../shared/conformance/README.md):
 *
 *   - `//` lines before the first request describe the case; `// speconly:` marks a case whose
 *     result is only validated against the method's result schema in openrpc.json;
 *   - `>> {json}` is a request, `<< {json}` the expected response; pairs are sent in order;
 *   - a response passes when it equals the expected one member for member (arrays in order, no
 *     extra members), `error.message` removed from both sides; a speconly response passes when
 *     it has no error and its result validates (or, when an error is expected, as above);
 *   - cases run alphabetically by folder (then by file), against one node.
 *
 * The suite lives beside the repo (`../shared/conformance/execution-apis`);
 * IBEX_CONFORMANCE_DIR points elsewhere (another part of the same suite).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { REPO_ROOT } from '../helpers/compile.js'
import { deepEqual, type Schema, type SchemaRoot, SchemaValidator } from './schema.js'

export const SUITE_DIR = resolve(
  process.env.IBEX_CONFORMANCE_DIR ?? join(REPO_ROOT, '..', 'shared', 'conformance', 'execution-apis'),
)

export interface Exchange {
  request: string
  expected: string
}

export interface ConformanceCase {
  /** `<method>/<file name without .io>`. */
  id: string
  method: string
  description: string
  speconly: boolean
  exchanges: Exchange[]
}

/** Every case of the suite at `dir`, in the order the reference runner sends them. */
export function loadCases(dir = SUITE_DIR): ConformanceCase[] {
  const testsDir = join(dir, 'tests')
  if (!existsSync(testsDir)) return []
  const cases: ConformanceCase[] = []
  for (const method of readdirSync(testsDir).sort()) {
    const folder = join(testsDir, method)
    for (const file of readdirSync(folder).sort()) {
      if (!file.endsWith('.io')) continue
      cases.push(parseCase(`${method}/${file.slice(0, -3)}`, method, readFileSync(join(folder, file), 'utf8')))
    }
  }
  return cases
}

export function parseCase(id: string, method: string, text: string): ConformanceCase {
  const description: string[] = []
  const exchanges: Exchange[] = []
  let speconly = false
  let request: string | undefined
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (line.startsWith('//')) {
      if (exchanges.length === 0 && request === undefined) {
        const comment = line.slice(2).trim()
        if (comment.startsWith('speconly:')) speconly = true
        description.push(comment)
      }
    } else if (line.startsWith('>>')) {
      request = line.slice(2).trim()
    } else if (line.startsWith('<<')) {
      if (request === undefined) throw new Error(`${id}: response without a request`)
      exchanges.push({ request, expected: line.slice(2).trim() })
      request = undefined
    }
  }
  return { id, method, description: description.join(' '), speconly, exchanges }
}

export interface Verdict {
  pass: boolean
  /** Why it failed: the first differences, or the schema violations. */
  reason: string
}

/** The method's result schema from openrpc.json. */
export class Judge {
  readonly #validator: SchemaValidator
  readonly #results = new Map<string, Schema>()

  constructor(openrpc: SchemaRoot & { methods: { name: string; result?: { schema?: Schema } }[] }) {
    this.#validator = new SchemaValidator(openrpc)
    for (const m of openrpc.methods) if (m.result?.schema !== undefined) this.#results.set(m.name, m.result.schema)
  }

  static load(dir = SUITE_DIR): Judge {
    return new Judge(JSON.parse(readFileSync(join(dir, 'openrpc.json'), 'utf8')))
  }

  judge(c: ConformanceCase, method: string, expectedText: string, gotText: string): Verdict {
    let got: Record<string, unknown>
    try {
      got = JSON.parse(gotText)
    } catch {
      return { pass: false, reason: `not JSON: ${gotText.slice(0, 200)}` }
    }
    const expected = JSON.parse(expectedText) as Record<string, unknown>
    if (c.speconly && expected.error === undefined) {
      if (got.error !== undefined) return { pass: false, reason: `error ${JSON.stringify(got.error).slice(0, 300)}` }
      const schema = this.#results.get(method)
      if (schema === undefined) return { pass: false, reason: `no result schema for ${method}` }
      const errors = this.#validator.validate(got.result, schema)
      return errors.length === 0 ? { pass: true, reason: '' } : { pass: false, reason: errors.slice(0, 5).join('\n') }
    }
    stripMessage(expected)
    stripMessage(got)
    if (deepEqual(expected, got)) return { pass: true, reason: '' }
    return { pass: false, reason: differences(expected, got).slice(0, 8).join('\n') }
  }
}

function stripMessage(response: Record<string, unknown>): void {
  const error = response.error as Record<string, unknown> | undefined
  if (error !== null && typeof error === 'object') delete error.message
}

/** The first paths where `got` differs from `want`. */
export function differences(want: unknown, got: unknown, path = ''): string[] {
  if (deepEqual(want, got)) return []
  const show = (v: unknown) => (v === undefined ? '(missing)' : JSON.stringify(v).slice(0, 160))
  if (Array.isArray(want) && Array.isArray(got)) {
    if (want.length !== got.length) return [`${path || '/'}: length ${got.length}, want ${want.length}`]
    return want.flatMap((w, i) => differences(w, got[i], `${path}/${i}`))
  }
  if (isObject(want) && isObject(got)) {
    const keys = new Set([...Object.keys(want), ...Object.keys(got)])
    return [...keys].flatMap((k) => differences(want[k], got[k], `${path}/${k}`))
  }
  return [`${path || '/'}: got ${show(got)}, want ${show(want)}`]
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
