/**
 * A small JSON Schema validator for the subset of draft 2019-09 that the execution-apis
 * OpenRPC document uses: `$ref` (local `#/components/schemas/...`), `type`, `enum`, `const`,
 * `pattern`, `minimum` / `maximum`, `properties`, `required`, `additionalProperties`,
 * `patternProperties`, `items`, `oneOf` / `anyOf` / `allOf` / `not`. Annotations (`title`,
 * `description`, …) are ignored. No dependency: the suite must not need one for ~30 checks.
 *
 * validate() returns the list of violations (empty = valid), each with its JSON pointer.
 */

// biome-ignore lint/suspicious/noExplicitAny: schemas are free-form JSON
export type Schema = Record<string, any> | boolean

export interface SchemaRoot {
  components?: { schemas?: Record<string, Schema> }
}

/** Longest oneOf/anyOf explanation kept in an error (the branches' own errors can be many). */
const MAX_BRANCH_ERRORS = 3

export class SchemaValidator {
  readonly #root: SchemaRoot
  readonly #patterns = new Map<string, RegExp>()

  constructor(root: SchemaRoot) {
    this.#root = root
  }

  validate(value: unknown, schema: Schema, path = ''): string[] {
    if (schema === true) return []
    if (schema === false) return [`${path || '/'}: no value allowed`]
    const errors: string[] = []
    if (typeof schema.$ref === 'string') errors.push(...this.validate(value, this.#resolve(schema.$ref), path))
    if (schema.type !== undefined && !typeMatches(value, schema.type)) {
      errors.push(`${path || '/'}: expected type ${JSON.stringify(schema.type)}, got ${jsonType(value)}`)
      return errors
    }
    if (schema.enum !== undefined && !schema.enum.some((e: unknown) => deepEqual(e, value))) {
      errors.push(`${path || '/'}: ${JSON.stringify(value)} not in enum`)
    }
    if (schema.const !== undefined && !deepEqual(schema.const, value))
      errors.push(`${path || '/'}: not the const value`)
    if (typeof value === 'string' && typeof schema.pattern === 'string' && !this.#regex(schema.pattern).test(value)) {
      errors.push(`${path || '/'}: ${JSON.stringify(value.slice(0, 80))} does not match ${schema.pattern}`)
    }
    if (typeof value === 'number') {
      if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: below minimum`)
      if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: above maximum`)
    }
    if (Array.isArray(value) && schema.items !== undefined) {
      if (Array.isArray(schema.items)) {
        schema.items.forEach((s: Schema, i: number) => {
          if (i < value.length) errors.push(...this.validate(value[i], s, `${path}/${i}`))
        })
      } else {
        for (const [i, v] of value.entries()) errors.push(...this.validate(v, schema.items, `${path}/${i}`))
      }
    }
    if (isObject(value)) errors.push(...this.#object(value, schema, path))
    if (Array.isArray(schema.allOf)) {
      for (const s of schema.allOf) errors.push(...this.validate(value, s, path))
    }
    if (Array.isArray(schema.anyOf)) {
      const branches = schema.anyOf.map((s: Schema) => this.validate(value, s, path))
      if (!branches.some((b: string[]) => b.length === 0)) {
        errors.push(`${path || '/'}: matches no anyOf branch (${summarize(branches)})`)
      }
    }
    if (Array.isArray(schema.oneOf)) {
      const branches = schema.oneOf.map((s: Schema) => this.validate(value, s, path))
      const matching = branches.filter((b: string[]) => b.length === 0).length
      if (matching !== 1) {
        errors.push(`${path || '/'}: matches ${matching} oneOf branches, want 1 (${summarize(branches)})`)
      }
    }
    if (schema.not !== undefined && this.validate(value, schema.not, path).length === 0) {
      errors.push(`${path || '/'}: matches a "not" schema`)
    }
    return errors
  }

  #object(value: Record<string, unknown>, schema: Record<string, Schema>, path: string): string[] {
    const errors: string[] = []
    const props = (schema.properties ?? {}) as Record<string, Schema>
    const patternProps = (schema.patternProperties ?? {}) as Record<string, Schema>
    for (const key of (schema.required ?? []) as string[]) {
      if (!(key in value)) errors.push(`${path}/${key}: required member missing`)
    }
    for (const [key, v] of Object.entries(value)) {
      let known = false
      if (key in props) {
        known = true
        errors.push(...this.validate(v, props[key] as Schema, `${path}/${key}`))
      }
      for (const [pattern, s] of Object.entries(patternProps)) {
        if (this.#regex(pattern).test(key)) {
          known = true
          errors.push(...this.validate(v, s, `${path}/${key}`))
        }
      }
      if (!known && schema.additionalProperties !== undefined) {
        errors.push(...this.validate(v, schema.additionalProperties, `${path}/${key}`))
      }
    }
    return errors
  }

  #resolve(ref: string): Schema {
    if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`)
    // biome-ignore lint/suspicious/noExplicitAny: walking JSON
    let node: any = this.#root
    for (const part of ref.slice(2).split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
    if (node === undefined) throw new Error(`unresolved $ref ${ref}`)
    return node as Schema
  }

  #regex(pattern: string): RegExp {
    let re = this.#patterns.get(pattern)
    if (re === undefined) {
      re = new RegExp(pattern, 'u')
      this.#patterns.set(pattern, re)
    }
    return re
  }
}

function summarize(branches: string[][]): string {
  return branches
    .map((b) => b.slice(0, MAX_BRANCH_ERRORS).join('; '))
    .join(' | ')
    .slice(0, 600)
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

function typeMatches(value: unknown, type: string | string[]): boolean {
  const types = Array.isArray(type) ? type : [type]
  const actual = jsonType(value)
  return types.some((t) => t === actual || (t === 'number' && actual === 'integer'))
}

/** Structural equality of JSON values (object member order ignored, array order kept). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== typeof b || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    return a.every((v, i) => deepEqual(v, b[i]))
  }
  if (typeof a === 'object') {
    if (Array.isArray(b)) return false
    const ka = Object.keys(a as object)
    const kb = Object.keys(b as object)
    if (ka.length !== kb.length) return false
    return ka.every(
      (k) =>
        Object.hasOwn(b as object, k) &&
        deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  }
  return false
}
