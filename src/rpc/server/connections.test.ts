import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { toQuantity } from '../../util/hex.js'
import type { Namespace } from '../types.js'
import { connectionKey } from './connections.js'
import { RpcHttpServer } from './http.js'

const eth: Namespace<unknown> = {
  name: 'eth',
  methods: { eth_chainId: { params: [], handler: () => toQuantity(786n) } },
}

function makeServer(maxConnectionsPerIp: number, trustedProxies: string[] = [], fastPath = true) {
  return new RpcHttpServer<unknown>({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: [],
    maxBodyBytes: 4096,
    maxBatchItems: 5,
    namespaces: [eth],
    enabledApis: ['eth'],
    ctx: {},
    health: () => ({ ok: true, body: {} }),
    maxConnectionsPerIp,
    trustedProxies,
    fastPath,
  })
}

const open: Socket[] = []
const servers: RpcHttpServer<unknown>[] = []
afterEach(async () => {
  for (const s of open.splice(0)) s.destroy()
  await Promise.all(servers.splice(0).map((s) => s.stop()))
})

interface Probe {
  socket: Socket
  closed: boolean
  received: string
}

function probe(port: number, localAddress: string): Probe {
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  open.push(socket)
  const p: Probe = { socket, closed: false, received: '' }
  socket.on('error', () => {})
  socket.on('data', (d: Buffer) => {
    p.received += d.toString('latin1')
  })
  socket.on('close', () => {
    p.closed = true
  })
  return p
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const POST = (id: number) => {
  const body = `{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":[]}`
  return `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
}

async function settle(probes: Probe[], closed: number): Promise<void> {
  for (let i = 0; i < 200 && probes.filter((p) => p.closed).length < closed; i++) await sleep(10)
  // a little longer: a socket wrongly closed would show up now
  await sleep(100)
}

describe('connectionKey', () => {
  it('is the IPv4 address (also when mapped into IPv6), and the /64 of an IPv6 address', () => {
    expect(connectionKey('203.0.113.9')).toBe('203.0.113.9')
    expect(connectionKey('::ffff:203.0.113.9')).toBe('203.0.113.9')
    expect(connectionKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(connectionKey('2001:db8:1:2::99')).toBe('2001:db8:1:2::/64')
    expect(connectionKey('2001:0DB8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64')
    expect(connectionKey('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(connectionKey('::1')).toBe('0:0:0:0::/64')
    expect(connectionKey('fe80::1:2:3:4')).toBe('fe80:0:0:0::/64')
  })
})

describe('the per-address connection cap', () => {
  for (const fastPath of [true, false]) {
    it(`closes sockets over the cap at accept, others' are served, and a closed socket frees its place (${fastPath ? 'fast path' : 'node:http'})`, async () => {
      const server = makeServer(3, [], fastPath)
      servers.push(server)
      const { port } = await server.start()
      const flood = Array.from({ length: 8 }, () => probe(port, '127.0.0.2'))
      await settle(flood, 5)
      expect(flood.filter((p) => p.closed)).toHaveLength(5)
      expect(flood.every((p) => p.received === '')).toBe(true)
      expect(server.connectionCap?.refused).toBe(5)
      expect(server.connectionCap?.openFrom('127.0.0.2')).toBe(3)
      const other = probe(port, '127.0.0.3')
      other.socket.write(POST(1))
      for (let i = 0; i < 200 && !other.received.includes('"result"'); i++) await sleep(10)
      expect(other.received).toContain('"result":"0x312"')
      for (const p of flood) p.socket.destroy()
      for (let i = 0; i < 200 && (server.connectionCap?.openFrom('127.0.0.2') ?? 0) > 0; i++) await sleep(10)
      expect(server.connectionCap?.openFrom('127.0.0.2')).toBe(0)
      const back = probe(port, '127.0.0.2')
      back.socket.write(POST(2))
      for (let i = 0; i < 200 && !back.received.includes('"result"'); i++) await sleep(10)
      expect(back.received).toContain('"id":2,"result":"0x312"')
    })
  }

  it('does not count a trusted proxy (its clients share its address)', async () => {
    const server = makeServer(2, ['127.0.0.4'])
    servers.push(server)
    const { port } = await server.start()
    const viaProxy = Array.from({ length: 6 }, () => probe(port, '127.0.0.4'))
    await settle(viaProxy, 0)
    expect(viaProxy.some((p) => p.closed)).toBe(false)
    expect(server.connectionCap?.keys).toBe(0)
  })

  it('is off at 0', async () => {
    const server = makeServer(0)
    servers.push(server)
    const { port } = await server.start()
    expect(server.connectionCap).toBeUndefined()
    const many = Array.from({ length: 10 }, () => probe(port, '127.0.0.5'))
    await settle(many, 0)
    expect(many.some((p) => p.closed)).toBe(false)
  })
})
