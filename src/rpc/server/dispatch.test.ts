import { describe, expect, it } from 'vitest'
import { RevertError, ServerError } from '../errors.js'
import { hexToBytes, toQuantity } from '../../util/hex.js'
import { Address, BlockTag, Bool, optional, Quantity } from '../params/index.js'
import type { Namespace } from '../types.js'
import { keep } from '../format/cache.js'
import { decodeParams, KEPT_BYTES_MIN_ITEMS, RpcDispatcher, type RpcSession } from './dispatch.js'

interface Ctx {
  calls: string[]
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

const eth: Namespace<Ctx> = {
  name: 'eth',
  methods: {
    eth_echo: {
      params: [Quantity, optional(Bool, false)],
      handler: (ctx, [n, flag]) => {
        ctx.calls.push(`echo ${n}`)
        return { n: toQuantity(n as bigint), flag }
      },
    },
    eth_nothing: { params: [], handler: () => undefined },
    eth_slow: {
      params: [Quantity],
      handler: async (ctx, [ms]) => {
        await sleep(Number(ms))
        ctx.calls.push(`slept ${ms}`)
        return toQuantity(ms as bigint)
      },
    },
    eth_balance: { params: [Address, BlockTag], handler: () => '0x0' },
    eth_fail: {
      params: [],
      handler: () => {
        throw new ServerError('nonce too low')
      },
    },
    eth_revert: {
      params: [],
      handler: async () => {
        throw new RevertError(hexToBytes('0xdeadbeef'))
      },
    },
    eth_crash: {
      params: [],
      handler: () => {
        throw new TypeError('cannot read properties of undefined')
      },
    },
    eth_bigint: { params: [], handler: () => 1n },
    eth_html: { params: [], handler: () => 'a<b>&c' },
  },
}

const debug: Namespace<Ctx> = {
  name: 'debug',
  methods: { debug_secret: { params: [], handler: () => 'secret' } },
}

function setup(maxBatchItems = 10) {
  const ctx: Ctx = { calls: [] }
  const internal: unknown[] = []
  const d = new RpcDispatcher<Ctx>({
    namespaces: [eth, debug],
    enabledApis: ['eth', 'net'],
    ctx,
    maxBatchItems,
    onInternalError: (err) => internal.push(err),
  })
  return { d, ctx, internal }
}

const req = (method: string, params?: unknown, id: unknown = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })

describe('RpcDispatcher: answer text', () => {
  it('writes plain hex answers exactly as JSON.stringify does, for every id', async () => {
    const values = ['0x', '0x0', '0xdeadBEEF', `0x${'ab'.repeat(600)}`, '0xg', 'x0', '0x<', 'plain']
    const ids: unknown[] = [0, 1, -7, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1.5, 1e21, 'a"b<', '', null]
    for (const value of values) {
      const ns: Namespace<Ctx> = { name: 'eth', methods: { eth_value: { params: [], handler: () => value } } }
      const d = new RpcDispatcher<Ctx>({
        namespaces: [ns],
        enabledApis: ['eth'],
        ctx: { calls: [] },
        maxBatchItems: 10,
      })
      for (const id of ids) {
        const expected = JSON.stringify({ jsonrpc: '2.0', id, result: value }).replace(
          /[<>&]/g,
          (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
        )
        expect(await d.handleBody(req('eth_value', [], id)), `${value} ${id}`).toBe(expected)
        expect(await d.handleBody(`[${req('eth_value', [], id)}]`)).toBe(`[${expected}]`)
      }
    }
  })
})

describe('RpcDispatcher: single calls', () => {
  it('builds its method map from enabled namespaces only', () => {
    const { d } = setup()
    expect(d.methods.has('eth_echo')).toBe(true)
    expect(d.methods.has('debug_secret')).toBe(false)
  })

  it('answers a call with the exact envelope', async () => {
    const { d } = setup()
    expect(await d.handleBody(req('eth_echo', ['0x2a']))).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"n":"0x2a","flag":false}}',
    )
    expect(await d.handleBody(req('eth_nothing', [], 'abc'))).toBe('{"jsonrpc":"2.0","id":"abc","result":null}')
  })

  it('echoes any non-object id, null and booleans included', async () => {
    const { d } = setup()
    for (const id of ['x', 0, 1.5, null, true]) {
      expect(JSON.parse((await d.handleBody(req('eth_nothing', [], id))) ?? '')).toEqual({
        jsonrpc: '2.0',
        id,
        result: null,
      })
    }
  })

  it('rejects invalid envelopes with -32600 invalid request', async () => {
    const { d } = setup()
    const bad = (id: unknown): string =>
      JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } })
    expect(await d.handleBody('{"id":7,"method":"eth_nothing"}')).toBe(bad(7))
    expect(await d.handleBody('{"jsonrpc":"1.0","id":7,"method":"eth_nothing"}')).toBe(bad(7))
    expect(await d.handleBody('{"jsonrpc":2.0,"id":7,"method":"eth_nothing"}')).toBe(bad(7))
    expect(await d.handleBody('{"jsonrpc":"2.0","id":7}')).toBe(bad(7))
    expect(await d.handleBody('{"jsonrpc":"2.0","id":7,"method":""}')).toBe(bad(7))
    expect(await d.handleBody('{"jsonrpc":"2.0","id":7,"method":5}')).toBe(bad(7))
    expect(await d.handleBody('{"jsonrpc":"2.0","id":{"a":1},"method":"eth_nothing"}')).toBe(bad(null))
    expect(await d.handleBody('{"jsonrpc":"2.0","id":[1],"method":"eth_nothing"}')).toBe(bad(null))
    expect(await d.handleBody('{"method":"eth_nothing"}')).toBe(bad(null))
    expect(await d.handleBody('{}')).toBe(bad(null))
    expect(await d.handleBody('1')).toBe(bad(null))
    expect(await d.handleBody('"x"')).toBe(bad(null))
    expect(await d.handleBody('null')).toBe(bad(null))
  })

  it('matches envelope keys case-insensitively, as Go does', async () => {
    const { d } = setup()
    expect(await d.handleBody('{"JSONRPC":"2.0","ID":3,"Method":"eth_nothing"}')).toBe(
      '{"jsonrpc":"2.0","id":3,"result":null}',
    )
  })

  it('runs notifications without answering, and ignores responses', async () => {
    const { d, ctx } = setup()
    expect(await d.handleBody('{"jsonrpc":"2.0","method":"eth_echo","params":["0x1"]}')).toBeUndefined()
    expect(ctx.calls).toEqual(['echo 1'])
    expect(await d.handleBody('{"jsonrpc":"2.0","method":"eth_fail"}')).toBeUndefined()
    expect(await d.handleBody('{"jsonrpc":"2.0","id":1,"result":"0x1"}')).toBeUndefined()
    expect(await d.handleBody('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}')).toBeUndefined()
  })

  it('answers unknown and disabled methods with -32601', async () => {
    const { d } = setup()
    expect(await d.handleBody(req('eth_foo', []))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method eth_foo does not exist/is not available"}}',
    )
    expect(JSON.parse((await d.handleBody(req('debug_secret'))) ?? '').error).toEqual({
      code: -32601,
      message: 'the method debug_secret does not exist/is not available',
    })
  })

  it('answers *_subscribe with notifications not supported, and unsubscribes nothing', async () => {
    const { d } = setup()
    const err = async (body: string) => JSON.parse((await d.handleBody(body)) ?? '').error
    expect(await err(req('eth_subscribe', ['newHeads']))).toEqual({
      code: -32601,
      message: 'notifications not supported',
    })
    expect(await err(req('foo_subscribe'))).toEqual({ code: -32601, message: 'notifications not supported' })
    expect(await err(req('eth_unsubscribe', ['0x1']))).toEqual({ code: -32000, message: 'subscription not found' })
    expect(await err(req('eth_unsubscribe'))).toEqual({
      code: -32602,
      message: 'missing value for required argument 0',
    })
    expect(await err(req('eth_unsubscribe', [1]))).toEqual({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID',
    })
  })
})

describe('RpcDispatcher: a session with subscriptions (WebSocket)', () => {
  it('hands *_subscribe (namespace, raw params) and decoded *_unsubscribe ids to the session', async () => {
    const { d } = setup()
    const seen: unknown[] = []
    const session: RpcSession = {
      subscribe: (namespace, params) => {
        seen.push([namespace, params])
        return '0xabc'
      },
      unsubscribe: (id) => {
        if (id !== '0xabc') throw new ServerError('subscription not found')
        return true
      },
    }
    expect(await d.handleBody(req('eth_subscribe', ['newHeads']), session)).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"0xabc"}',
    )
    expect(await d.handleBody(req('foo_subscribe', ['x', 1]), session)).toBe(
      '{"jsonrpc":"2.0","id":1,"result":"0xabc"}',
    )
    expect(seen).toEqual([
      ['eth', ['newHeads']],
      ['foo', ['x', 1]],
    ])
    expect(await d.handleBody(req('eth_unsubscribe', ['0xabc']), session)).toBe(
      '{"jsonrpc":"2.0","id":1,"result":true}',
    )
    expect(JSON.parse((await d.handleBody(req('eth_unsubscribe', ['0x1']), session)) ?? '').error).toEqual({
      code: -32000,
      message: 'subscription not found',
    })
    expect(JSON.parse((await d.handleBody(req('eth_unsubscribe', [1]), session)) ?? '').error).toEqual({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID',
    })
    // batches carry the session to every item
    const batch = `[${req('eth_subscribe', ['newHeads'], 1)},${req('eth_echo', ['0x1'], 2)}]`
    expect(JSON.parse((await d.handleBody(batch, session)) ?? '')).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0xabc' },
      { jsonrpc: '2.0', id: 2, result: { n: '0x1', flag: false } },
    ])
  })
})

describe('RpcDispatcher: params', () => {
  const error = async (method: string, params?: unknown) => {
    const { d } = setup()
    return JSON.parse((await d.handleBody(req(method, params))) ?? '').error
  }

  it('accepts absent, null and [] params for methods without params', async () => {
    const { d } = setup()
    for (const body of [req('eth_nothing'), req('eth_nothing', null), req('eth_nothing', [])]) {
      expect(await d.handleBody(body)).toBe('{"jsonrpc":"2.0","id":1,"result":null}')
    }
  })

  it('rejects non-array params', async () => {
    expect(await error('eth_nothing', {})).toEqual({ code: -32602, message: 'non-array args' })
    expect(await error('eth_nothing', 'x')).toEqual({ code: -32602, message: 'non-array args' })
    expect(await error('eth_nothing', 1)).toEqual({ code: -32602, message: 'non-array args' })
  })

  it('counts arguments like geth', async () => {
    expect(await error('eth_nothing', [1])).toEqual({ code: -32602, message: 'too many arguments, want at most 0' })
    expect(await error('eth_echo', ['0x1', true, 3])).toEqual({
      code: -32602,
      message: 'too many arguments, want at most 2',
    })
    expect(await error('eth_echo', [])).toEqual({ code: -32602, message: 'missing value for required argument 0' })
    expect(await error('eth_balance', ['0x52908400098527886e0f7030069857d2e4169ee7'])).toEqual({
      code: -32602,
      message: 'missing value for required argument 1',
    })
  })

  it('prefixes decoder errors with the argument index', async () => {
    expect(await error('eth_echo', ['0x1', 'yes'])).toEqual({
      code: -32602,
      message: 'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
    })
    expect(await error('eth_echo', ['1'])).toEqual({
      code: -32602,
      message:
        'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big',
    })
    // the first bad argument wins over an excess one
    expect(await error('eth_echo', ['1', true, 3])).toMatchObject({
      message: expect.stringMatching(/^invalid argument 0: /),
    })
  })

  it('gives optional params their default for null or missing values', async () => {
    const { d } = setup()
    expect(JSON.parse((await d.handleBody(req('eth_echo', ['0x1', null]))) ?? '').result).toEqual({
      n: '0x1',
      flag: false,
    })
    expect(JSON.parse((await d.handleBody(req('eth_echo', ['0x1', true]))) ?? '').result).toEqual({
      n: '0x1',
      flag: true,
    })
  })

  it('refuses a BlockNumberOrHash naming no block as geth v1.17.5 does (-32602, prefixed)', async () => {
    const neither = { code: -32602, message: 'invalid argument 1: must specify either BlockHash or BlockNumber' }
    expect(await error('eth_balance', ['0x52908400098527886e0f7030069857d2e4169ee7', null])).toEqual(neither)
    expect(await error('eth_balance', ['0x52908400098527886e0f7030069857d2e4169ee7', {}])).toEqual(neither)
    // the first bad param wins
    expect(() => decodeParams([BlockTag, Quantity], [null, 'x'])).toThrow(
      'invalid argument 0: must specify either BlockHash or BlockNumber',
    )
  })

  it('raises a decoder ServerError unprefixed and only after every param decoded', () => {
    // a check geth makes in its handler, raised by a decoder
    const inHandler = {
      optional: false as const,
      decode(raw: unknown) {
        if (raw === null) throw new ServerError('checked in the handler')
        return raw
      },
    }
    // a later bad param wins over the deferred error
    expect(() => decodeParams([inHandler, Quantity], [null, 'x'])).toThrow(
      'invalid argument 1: json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big',
    )
    expect(() => decodeParams([inHandler, Quantity], [null])).toThrow('missing value for required argument 1')
    expect(() => decodeParams([inHandler, Quantity], [null, '0x1'])).toThrow(/^checked in the handler$/)
  })
})

describe('RpcDispatcher: handler errors', () => {
  it('maps RpcErrors to their code, message and data', async () => {
    const { d } = setup()
    expect(await d.handleBody(req('eth_fail'))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nonce too low"}}',
    )
    expect(await d.handleBody(req('eth_revert'))).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted","data":"0xdeadbeef"}}',
    )
  })

  it('hides unknown errors behind -32603 and reports them', async () => {
    const { d, internal } = setup()
    const body = (await d.handleBody(req('eth_crash'))) ?? ''
    expect(body).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"method handler crashed"}}')
    expect(body).not.toContain('undefined')
    expect(internal).toHaveLength(1)
    expect(internal[0]).toBeInstanceOf(TypeError)
  })

  it('turns an unserializable result (a bigint) into -32603 for that answer only', async () => {
    const { d, internal } = setup()
    const out = JSON.parse((await d.handleBody(`[${req('eth_bigint', [], 1)},${req('eth_nothing', [], 2)}]`)) ?? '')
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'method handler crashed' } },
      { jsonrpc: '2.0', id: 2, result: null },
    ])
    expect(internal).toHaveLength(1)
  })

  it('escapes <, > and & as Go does', async () => {
    const { d } = setup()
    expect(await d.handleBody(req('eth_html'))).toBe('{"jsonrpc":"2.0","id":1,"result":"a\\u003cb\\u003e\\u0026c"}')
  })
})

describe('RpcDispatcher: long arrays of kept results', () => {
  // kept (frozen) objects as the chain formatters make them; text with escapes and non-ASCII
  const item = (i: number) => keep({ i: toQuantity(BigInt(i)), note: i % 7 === 0 ? 'größe <&> 𝄞' : 'plain' })
  const kept = (n: number) => Array.from({ length: n }, (_, i) => item(i))
  const plain = (n: number) => Array.from({ length: n }, (_, i) => ({ ...item(i) }))
  const ns = (n: number, make: (n: number) => unknown[]): Namespace<Ctx> => ({
    name: 'eth',
    methods: { eth_list: { params: [], handler: () => make(n) } },
  })
  const dispatcher = (n: number, make: (n: number) => unknown[], maxResponseBytes = 0) =>
    new RpcDispatcher<Ctx>({
      namespaces: [ns(n, make)],
      enabledApis: ['eth'],
      ctx: { calls: [] },
      maxBatchItems: 10,
      maxResponseBytes,
    })

  it('answers as bytes equal to the text of the same objects unkept', async () => {
    for (const n of [KEPT_BYTES_MIN_ITEMS, KEPT_BYTES_MIN_ITEMS + 37]) {
      for (const id of [1, 'ä"\\<id>', null]) {
        const body = req('eth_list', [], id)
        const fast = dispatcher(n, kept).answerBody(body)
        expect(Buffer.isBuffer(fast)).toBe(true)
        const text = await dispatcher(n, plain).handleBody(body)
        expect((fast as Buffer).toString('utf8')).toBe(text)
        expect(JSON.parse(text as string).result).toHaveLength(n)
        // handleBody (WebSocket, tests) still gives text
        expect(await dispatcher(n, kept).handleBody(body)).toBe(text)
      }
    }
  })

  it('keeps shorter arrays as text, and answers response too large past the cap', async () => {
    expect(typeof dispatcher(KEPT_BYTES_MIN_ITEMS - 1, kept).answerBody(req('eth_list', []))).toBe('string')
    const size = Buffer.byteLength((await dispatcher(100, plain).handleBody(req('eth_list', []))) as string)
    const tooLarge = '{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"response too large"}}'
    expect(dispatcher(100, kept, size - 1).answerBody(req('eth_list', []))).toBe(tooLarge)
    expect((dispatcher(100, kept, size).answerBody(req('eth_list', [])) as Buffer).length).toBe(size)
  })
})

describe('RpcDispatcher: bodies and batches', () => {
  it('answers bad JSON with -32700 and blank bodies with nothing', async () => {
    const { d } = setup()
    const parse = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}'
    expect(await d.handleBody('{"jsonrpc":')).toBe(parse)
    expect(await d.handleBody('[1,')).toBe(parse)
    expect(await d.handleBody('nope')).toBe(parse)
    expect(await d.handleBody('')).toBeUndefined()
    expect(await d.handleBody(' \n\t ')).toBeUndefined()
  })

  it('answers [] with one empty batch object', async () => {
    const { d } = setup()
    expect(await d.handleBody('[]')).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}')
    expect(await d.handleBody(' [ ] ')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}',
    )
  })

  it('answers an oversized batch with one batch too large error carrying the first call id', async () => {
    const { d, ctx } = setup(3)
    const notification = '{"jsonrpc":"2.0","method":"eth_echo","params":["0x1"]}'
    const batch = `[${notification},${req('eth_echo', ['0x1'], 'a')},${req('eth_echo', ['0x2'], 'b')},${req('eth_nothing', [], 'c')}]`
    expect(await d.handleBody(batch)).toBe(
      '[{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"batch too large"}}]',
    )
    expect(ctx.calls).toEqual([])
    const onlyNotifications = `[${notification},${notification},${notification},${notification}]`
    expect(await d.handleBody(onlyNotifications)).toBe(
      '[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large"}}]',
    )
    expect(
      await d.handleBody(`[${req('eth_nothing', [], 1)},${req('eth_nothing', [], 2)},${req('eth_nothing', [], 3)}]`),
    ).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":null},{"jsonrpc":"2.0","id":2,"result":null},{"jsonrpc":"2.0","id":3,"result":null}]',
    )
  })

  it('has no limit when maxBatchItems is 0', async () => {
    const { d } = setup(0)
    const items = Array.from({ length: 50 }, (_, i) => req('eth_nothing', [], i))
    expect(JSON.parse((await d.handleBody(`[${items.join(',')}]`)) ?? '')).toHaveLength(50)
  })

  it('runs batch items concurrently and answers in request order', async () => {
    const { d, ctx } = setup()
    const body = `[${req('eth_slow', ['0x32'], 1)},${req('eth_slow', ['0x1'], 2)},${req('eth_slow', ['0x32'], 3)}]`
    const out = JSON.parse((await d.handleBody(body)) ?? '')
    // the short call finished first: it did not wait for the long one before it
    expect(ctx.calls).toEqual(['slept 1', 'slept 50', 'slept 50'])
    expect(out.map((r: { id: number }) => r.id)).toEqual([1, 2, 3])
    expect(out.map((r: { result: string }) => r.result)).toEqual(['0x32', '0x1', '0x32'])
  })

  it('keeps at most batchConcurrency items of a batch in progress', async () => {
    let running = 0
    let most = 0
    const ns: Namespace<Ctx> = {
      name: 'eth',
      methods: {
        eth_wait: {
          params: [Quantity],
          handler: async (_ctx, [n]) => {
            running++
            most = Math.max(most, running)
            await sleep(1 + (Number(n) % 3))
            running--
            return toQuantity(n as bigint)
          },
        },
      },
    }
    const d = new RpcDispatcher<Ctx>({
      namespaces: [ns],
      enabledApis: ['eth'],
      ctx: { calls: [] },
      maxBatchItems: 0,
      batchConcurrency: 3,
    })
    const items = Array.from({ length: 40 }, (_, i) => req('eth_wait', [toQuantity(BigInt(i))], i))
    const out = JSON.parse((await d.handleBody(`[${items.join(',')}]`)) ?? '')
    expect(most).toBe(3)
    expect(out.map((r: { id: number }) => r.id)).toEqual(Array.from({ length: 40 }, (_, i) => i))
    expect(out.map((r: { result: string }) => r.result)).toEqual(
      Array.from({ length: 40 }, (_, i) => toQuantity(BigInt(i))),
    )
  })

  it('answers batch items independently, leaves notifications out, invalid items get null ids', async () => {
    const { d } = setup()
    const body = `[${req('eth_nothing', [], 1)},{"jsonrpc":"2.0","method":"eth_nothing"},1,[2],null,${req('eth_fail', [], 2)}]`
    expect(JSON.parse((await d.handleBody(body)) ?? '')).toEqual([
      { jsonrpc: '2.0', id: 1, result: null },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'nonce too low' } },
    ])
  })

  it('gives no body for a batch of notifications only', async () => {
    const { d, ctx } = setup()
    const n = '{"jsonrpc":"2.0","method":"eth_echo","params":["0x5"]}'
    expect(await d.handleBody(`[${n},${n}]`)).toBeUndefined()
    expect(ctx.calls).toEqual(['echo 5', 'echo 5'])
  })

  it('refuses a method registered twice', () => {
    expect(
      () =>
        new RpcDispatcher<Ctx>({
          namespaces: [eth, { name: 'net', methods: { eth_echo: eth.methods.eth_echo } }],
          enabledApis: ['eth', 'net'],
          ctx: { calls: [] },
          maxBatchItems: 0,
        }),
    ).toThrow(/duplicate RPC method eth_echo/)
  })
})
