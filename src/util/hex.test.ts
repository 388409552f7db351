import { describe, expect, it } from 'vitest'
import { bytesToHex, hasHexPrefix, hexToBigInt, hexToBytes, toData, toQuantity } from './hex.js'

describe('toQuantity', () => {
  it('encodes without leading zeros, zero as 0x0', () => {
    expect(toQuantity(0)).toBe('0x0')
    expect(toQuantity(0n)).toBe('0x0')
    expect(toQuantity(1)).toBe('0x1')
    expect(toQuantity(255)).toBe('0xff')
    expect(toQuantity(1023)).toBe('0x3ff')
    expect(toQuantity(1024)).toBe('0x400')
    expect(toQuantity(1024n)).toBe('0x400')
    expect(toQuantity(Number.MAX_SAFE_INTEGER)).toBe('0x1fffffffffffff')
    expect(toQuantity((1n << 256n) - 1n)).toBe(`0x${'f'.repeat(64)}`)
  })

  it('rejects negative and non-integer numbers', () => {
    expect(() => toQuantity(-1)).toThrow(RangeError)
    expect(() => toQuantity(-1n)).toThrow(RangeError)
    expect(() => toQuantity(1.5)).toThrow(RangeError)
    expect(() => toQuantity(Number.NaN)).toThrow(RangeError)
    expect(() => toQuantity(2 ** 60)).toThrow(RangeError)
  })
})

describe('toData / bytesToHex', () => {
  it('encodes lowercase with 0x, empty as 0x', () => {
    expect(toData(new Uint8Array())).toBe('0x')
    expect(toData(Uint8Array.of(0, 1, 0xab, 0xff))).toBe('0x0001abff')
    expect(bytesToHex(Uint8Array.of(0xde, 0xad))).toBe('0xdead')
  })

  it('encodes long arrays and subarray views through the native path', () => {
    const big = new Uint8Array(100).map((_, i) => i)
    expect(toData(big)).toBe(`0x${Buffer.from(big).toString('hex')}`)
    const view = big.subarray(40, 80)
    expect(toData(view)).toBe(`0x${Buffer.from(view).toString('hex')}`)
    expect(toData(big.subarray(3, 6))).toBe('0x030405')
  })
})

describe('hexToBytes', () => {
  it('decodes with or without prefix, either case', () => {
    expect(hexToBytes('0x')).toEqual(new Uint8Array())
    expect(hexToBytes('')).toEqual(new Uint8Array())
    expect(hexToBytes('0xABcd')).toEqual(Uint8Array.of(0xab, 0xcd))
    expect(hexToBytes('0XAB')).toEqual(Uint8Array.of(0xab))
    expect(hexToBytes('abcd')).toEqual(Uint8Array.of(0xab, 0xcd))
  })

  it('returns a fresh unpooled array', () => {
    const b = hexToBytes('0x01')
    expect(b.constructor).toBe(Uint8Array)
    expect(b.buffer.byteLength).toBe(1)
  })

  it('rejects odd length and bad digits', () => {
    expect(() => hexToBytes('0xabc')).toThrow(/odd length/)
    expect(() => hexToBytes('0xzz')).toThrow(/invalid hex/)
    expect(() => hexToBytes('0xab g')).toThrow(SyntaxError)
  })
})

describe('hexToBigInt / hasHexPrefix', () => {
  it('decodes quantities', () => {
    expect(hexToBigInt('0x0')).toBe(0n)
    expect(hexToBigInt('0x')).toBe(0n)
    expect(hexToBigInt('0xff')).toBe(255n)
    expect(hexToBigInt('ff')).toBe(255n)
    expect(() => hexToBigInt('0xfg')).toThrow(SyntaxError)
  })

  it('recognises 0x and 0X', () => {
    expect(hasHexPrefix('0x')).toBe(true)
    expect(hasHexPrefix('0X1')).toBe(true)
    expect(hasHexPrefix('x0')).toBe(false)
    expect(hasHexPrefix('0')).toBe(false)
  })
})
