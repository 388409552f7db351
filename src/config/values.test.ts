import { describe, expect, it } from 'vitest'

import { ValueProblem } from './errors.js'
import {
  describeValue,
  parseBigInt,
  parseBoolean,
  parseBootnodes,
  parseDurationMs,
  parseHost,
  parseInteger,
  parseList,
  parseNamespaces,
  parseOrigins,
  parsePort,
  parseTokenSymbol,
  parseUrl,
  parseWei,
} from './values.js'

function problem(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ValueProblem)
    return (err as Error).message
  }
  throw new Error('expected a ValueProblem')
}

describe('parseDurationMs', () => {
  it.each([
    ['0', 0],
    ['2', 2000],
    ['1.5', 1500],
    ['2s', 2000],
    ['0.5s', 500],
    ['500ms', 500],
    ['0ms', 0],
    ['0.1', 100],
    [2n, 2000],
    [0.25, 250],
  ])('%s → %i ms', (raw, ms) => {
    expect(parseDurationMs(raw)).toBe(ms)
  })

  it.each(['', 'abc', '2m', '-1', '1.5ms', 's', '2 s', '0.0001'])('rejects %j', (raw) => {
    expect(problem(() => parseDurationMs(raw))).toBe('expected a duration such as 0, 2, 1.5, 2s or 500ms')
  })

  it('applies a minimum', () => {
    expect(problem(() => parseDurationMs('0', 1))).toBe(
      'expected a duration such as 0, 2, 1.5, 2s or 500ms (at least 1ms)',
    )
    expect(parseDurationMs('1ms', 1)).toBe(1)
  })
})

describe('parseWei', () => {
  it.each([
    ['0', 0n],
    ['1000000000', 1_000_000_000n],
    ['1gwei', 1_000_000_000n],
    ['0.5gwei', 500_000_000n],
    ['1.000gwei', 1_000_000_000n],
    ['7wei', 7n],
    ['1ether', 10n ** 18n],
    [25n, 25n],
  ])('%s → %s', (raw, wei) => {
    expect(parseWei(raw)).toBe(wei)
  })

  it.each(['', '-1', '1.5', '1 gwei', '0.0000000001gwei', '1eth', 1.5])('rejects %j', (raw) => {
    expect(problem(() => parseWei(raw))).toMatch(/^expected an amount in wei such as 1000000000 or 1gwei/)
  })
})

describe('integers', () => {
  it('parses ports', () => {
    expect(parsePort('8545')).toBe(8545)
    expect(parsePort(0n)).toBe(0)
    expect(parsePort('65535')).toBe(65535)
    for (const raw of ['abc', '-1', '65536', '1.5', '', '0x10', 80.5]) {
      expect(problem(() => parsePort(raw))).toBe('expected an integer 0-65535')
    }
  })

  it('parses unbounded integers', () => {
    expect(parseInteger('1', 1, Number.MAX_SAFE_INTEGER)).toBe(1)
    expect(problem(() => parseInteger('0', 1, Number.MAX_SAFE_INTEGER))).toBe('expected an integer >= 1')
    expect(parseBigInt('123456789012345678901234567890', 1n, undefined, 'x')).toBe(123456789012345678901234567890n)
  })
})

describe('lists and names', () => {
  it('splits lists and rejects empty items', () => {
    expect(parseList('a, b ,c')).toEqual(['a', 'b', 'c'])
    expect(parseList('')).toEqual([])
    expect(parseList(['x'])).toEqual(['x'])
    expect(problem(() => parseList('a,,b'))).toBe('expected a list of strings (empty or non-string item)')
    expect(problem(() => parseList([1n]))).toBe('expected a list of strings (empty or non-string item)')
    expect(problem(() => parseList(5n))).toBe('expected a list of strings')
  })

  it('checks namespaces', () => {
    expect(parseNamespaces('eth,net,debug')).toEqual(['eth', 'net', 'debug'])
    expect(parseNamespaces('eth,bor,validators')).toEqual(['eth', 'bor', 'validators'])
    expect(problem(() => parseNamespaces('eth,foo'))).toBe(
      'unknown namespace "foo" (accepted: eth, net, web3, txpool, debug, personal, evm, anvil, hardhat, testing, bor, validators, ots, erigon, trace)',
    )
    expect(problem(() => parseNamespaces('eth,eth'))).toBe('namespace "eth" listed twice')
    expect(problem(() => parseNamespaces(''))).toBe(
      'expected at least one namespace (accepted: eth, net, web3, txpool, debug, personal, evm, anvil, hardhat, testing, bor, validators, ots, erigon, trace)',
    )
    expect(problem(() => parseNamespaces('ETH'))).toMatch(/^unknown namespace "ETH"/)
  })

  it('checks hosts', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'rpc.example.org'])
      expect(parseHost(host)).toBe(host)
    for (const host of ['', 'http://x', '[::1]', 'a b', '-bad.example']) {
      expect(problem(() => parseHost(host))).toBe(
        'expected an IP address or host name, e.g. 127.0.0.1, 0.0.0.0, ::1 or localhost',
      )
    }
  })

  it('checks CORS origins', () => {
    expect(parseOrigins('*')).toEqual(['*'])
    expect(parseOrigins('http://localhost:3000,https://app.example.org')).toEqual([
      'http://localhost:3000',
      'https://app.example.org',
    ])
    expect(parseOrigins([])).toEqual([])
    expect(problem(() => parseOrigins('https://x.org/path'))).toBe(
      '"https://x.org/path" is not an origin (expected * or scheme://host[:port])',
    )
    expect(problem(() => parseOrigins('localhost'))).toBe(
      '"localhost" is not an origin (expected * or scheme://host[:port])',
    )
  })

  it('checks URLs, symbols, booleans and bootnodes', () => {
    expect(parseUrl('https://scan.example.org', ['https:'])).toBe('https://scan.example.org')
    expect(problem(() => parseUrl('ftp://x', ['http:', 'https:']))).toBe(
      'expected a URL starting with http:// or https://',
    )
    expect(parseTokenSymbol('IBX')).toBe('IBX')
    expect(problem(() => parseTokenSymbol('TOO-LONG-SYMBOL'))).toBe('expected 1-11 letters or digits')
    expect(parseBoolean('false')).toBe(false)
    expect(parseBoolean(true)).toBe(true)
    expect(problem(() => parseBoolean('yes'))).toBe('expected true or false')
    expect(parseBootnodes('/ip4/1.2.3.4/tcp/30303/p2p/12D3KooW')).toEqual(['/ip4/1.2.3.4/tcp/30303/p2p/12D3KooW'])
    expect(problem(() => parseBootnodes('enode://abc@1.2.3.4:30303'))).toMatch(/is not a multiaddr/)
  })

  it('describes values for messages', () => {
    expect(describeValue('abc')).toBe('"abc"')
    expect(describeValue(5n)).toBe('5')
    expect(describeValue(['a', 1n])).toBe('["a", 1]')
    expect(describeValue({ a: 1 })).toBe('a table')
  })
})
