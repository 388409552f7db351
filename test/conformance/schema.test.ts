/** The conformance runner's JSON Schema subset: what the OpenRPC document uses, judged as the reference runner would. */
import { describe, expect, it } from 'vitest'
import { differences, parseCase } from './cases.js'
import { deepEqual, SchemaValidator } from './schema.js'

const root = {
  components: {
    schemas: {
      uint: { type: 'string', pattern: '^0x(0|[1-9a-f][0-9a-f]*)$' },
      Head: {
        type: 'object',
        additionalProperties: false,
        required: ['number'],
        properties: { number: { $ref: '#/components/schemas/uint' } },
      },
    },
  },
}
const v = new SchemaValidator(root)

describe('SchemaValidator', () => {
  it('follows $ref, required, additionalProperties and patterns', () => {
    const head = { $ref: '#/components/schemas/Head' }
    expect(v.validate({ number: '0x1' }, head)).toEqual([])
    expect(v.validate({ number: '0x01' }, head)).toHaveLength(1)
    expect(v.validate({}, head)[0]).toMatch(/required/)
    expect(v.validate({ number: '0x1', extra: 1 }, head)[0]).toMatch(/no value allowed/)
  })

  it('needs exactly one oneOf branch, at least one anyOf branch', () => {
    const oneOf = { oneOf: [{ type: 'string' }, { type: 'string', pattern: '^a' }] }
    expect(v.validate('b', oneOf)).toEqual([])
    expect(v.validate('a', oneOf)[0]).toMatch(/matches 2 oneOf/)
    expect(v.validate(null, { anyOf: [{ type: 'null' }, { type: 'string' }] })).toEqual([])
  })
})

describe('case files and comparison', () => {
  it('parses descriptions, speconly and request/response pairs', () => {
    const c = parseCase(
      'm/x',
      'm',
      '// about\n// speconly: schema\n>> {"id":1}\n<< {"id":1,"result":1}\n>> {"id":2}\n<< {"id":2}\n',
    )
    expect(c).toMatchObject({ description: 'about speconly: schema', speconly: true })
    expect(c.exchanges).toHaveLength(2)
  })

  it('compares member for member, arrays in order', () => {
    expect(deepEqual({ a: [1, 2], b: 'x' }, { b: 'x', a: [1, 2] })).toBe(true)
    expect(deepEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false)
    expect(differences({ a: 1 }, { a: 1, b: 2 })).toEqual(['/b: got 2, want (missing)'])
  })
})
