import { describe, expect, it } from 'vitest'
import {
  decodeRevertReason,
  INTERNAL_ERROR_MESSAGE,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  LimitExceededError,
  MethodNotFoundError,
  NotificationsUnsupportedError,
  newRevertError,
  ParseError,
  RevertError,
  RpcError,
  ServerError,
  toJsonRpcError,
} from './errors.js'
import { hexToBytes, toData } from './hex.js'

const word = (n: bigint | number): string => BigInt(n).toString(16).padStart(64, '0')

/** ABI-encodes Error(string) for `bytes` (utf8 of a string, or raw bytes). */
function errorString(reason: string | Uint8Array): Uint8Array {
  const body = typeof reason === 'string' ? Buffer.from(reason, 'utf8') : Buffer.from(reason)
  const padded = Buffer.concat([body, Buffer.alloc((32 - (body.length % 32)) % 32)])
  return hexToBytes(`0x08c379a0${word(32)}${word(body.length)}${padded.toString('hex')}`)
}

const panic = (code: bigint): Uint8Array => hexToBytes(`0x4e487b71${word(code)}`)

describe('error classes', () => {
  it('carry geth codes and messages', () => {
    const cases: [RpcError, number, string][] = [
      [new ParseError(), -32700, 'parse error'],
      [new InvalidRequestError(), -32600, 'invalid request'],
      [new InvalidRequestError('empty batch'), -32600, 'empty batch'],
      [new MethodNotFoundError('eth_foo'), -32601, 'the method eth_foo does not exist/is not available'],
      [new NotificationsUnsupportedError(), -32601, 'notifications not supported'],
      [new InvalidParamsError('missing value for required argument 0'), -32602, 'missing value for required argument 0'],
      [new InternalError(), -32603, INTERNAL_ERROR_MESSAGE],
      [new ServerError('nonce too low'), -32000, 'nonce too low'],
      [new LimitExceededError('query exceeds max block range 10000'), -32005, 'query exceeds max block range 10000'],
    ]
    for (const [err, code, message] of cases) {
      expect(err).toBeInstanceOf(RpcError)
      expect(err).toBeInstanceOf(Error)
      expect(err.code).toBe(code)
      expect(err.shortMessage).toBe(message)
      expect(err.message).toBe(message)
      expect(toJsonRpcError(err)).toEqual({ code, message })
    }
  })

  it('keep details and cause out of the wire object', () => {
    const cause = new Error('disk on fire')
    const err = new ServerError('insufficient funds for gas * price + value', { details: 'balance 0', cause, data: { x: 1 } })
    expect(err.details).toBe('balance 0')
    expect(err.cause).toBe(cause)
    expect(err.name).toBe('ServerError')
    expect(JSON.stringify(toJsonRpcError(err))).toBe(
      '{"code":-32000,"message":"insufficient funds for gas * price + value","data":{"x":1}}',
    )
  })
})

describe('toJsonRpcError', () => {
  it('maps unknown errors to -32603 without leaking their message or stack', () => {
    for (const thrown of [new TypeError('x is undefined'), 'boom', undefined, { code: 1, message: 'fake' }]) {
      const wire = toJsonRpcError(thrown)
      expect(wire.code).toBe(-32603)
      expect(wire.message).toBe('method handler crashed')
      expect(JSON.stringify(wire)).toBe('{"code":-32603,"message":"method handler crashed"}')
    }
  })
})

describe('decodeRevertReason', () => {
  it('decodes Error(string)', () => {
    expect(decodeRevertReason(errorString('Ownable: caller is not the owner'))).toBe('Ownable: caller is not the owner')
    expect(decodeRevertReason(errorString(''))).toBe('')
    expect(decodeRevertReason(errorString('x'.repeat(70)))).toBe('x'.repeat(70))
    expect(decodeRevertReason(errorString('héllo ✓'))).toBe('héllo ✓')
  })

  it('replaces each invalid UTF-8 byte by U+FFFD, as Go does', () => {
    expect(decodeRevertReason(errorString(Uint8Array.of(0x61, 0xff, 0xe2, 0x82, 0x62)))).toBe('a\uFFFD\uFFFD\uFFFDb')
  })

  it('decodes Panic(uint256) with geth wording', () => {
    expect(decodeRevertReason(panic(0x01n))).toBe('assert(false)')
    expect(decodeRevertReason(panic(0x11n))).toBe('arithmetic underflow or overflow')
    expect(decodeRevertReason(panic(0x12n))).toBe('division or modulo by zero')
    expect(decodeRevertReason(panic(0x32n))).toBe('out-of-bounds access of an array or bytesN')
    expect(decodeRevertReason(panic(0x99n))).toBe('unknown panic code: 0x99')
  })

  it('gives up on malformed or foreign data', () => {
    expect(decodeRevertReason(new Uint8Array())).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0x08c379'))).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0x08c379a0'))).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0x4e487b7100'))).toBeUndefined()
    expect(decodeRevertReason(hexToBytes('0xdeadbeef'))).toBeUndefined()
    // offset past the end
    expect(decodeRevertReason(hexToBytes(`0x08c379a0${word(64)}${word(1)}`))).toBeUndefined()
    // length past the end
    expect(decodeRevertReason(hexToBytes(`0x08c379a0${word(32)}${word(33)}${'61'.repeat(32)}`))).toBeUndefined()
    // huge offset
    expect(decodeRevertReason(hexToBytes(`0x08c379a0${'f'.repeat(64)}${word(0)}`))).toBeUndefined()
  })
})

describe('RevertError / newRevertError', () => {
  it('is code 3 with the reason and the data', () => {
    const data = errorString('not enough')
    const err = new RevertError(data)
    expect(err.code).toBe(3)
    expect(err.reason).toBe('not enough')
    expect(toJsonRpcError(err)).toEqual({ code: 3, message: 'execution reverted: not enough', data: toData(data) })
  })

  it('says only execution reverted for undecodable data', () => {
    const err = newRevertError(hexToBytes('0xdeadbeef'))
    expect(toJsonRpcError(err)).toEqual({ code: 3, message: 'execution reverted', data: '0xdeadbeef' })
  })

  it('is a plain -32000 without data when the revert carried no data', () => {
    const err = newRevertError(new Uint8Array())
    expect(err).toBeInstanceOf(ServerError)
    expect(JSON.stringify(toJsonRpcError(err))).toBe('{"code":-32000,"message":"execution reverted"}')
  })

  it('decodes panics into the message', () => {
    expect(toJsonRpcError(newRevertError(panic(0x12n))).message).toBe('execution reverted: division or modulo by zero')
  })
})
