import { connect, createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { prng } from '../../util/prng.js'
import { toQuantity } from '../../util/hex.js'
import type { Namespace } from '../types.js'
import { RpcHttpServer } from './http.js'
import { directReadsAvailable, readDirect } from './wireRead.js'

// Reads without the stream layer (wireRead.ts): the bytes each connection gets must be its own,
// whole and in order, with one read buffer shared by all; pause/resume must still stop and restart
// reading; and a connection handed to node:http (then upgraded) must still get its bytes.

const open: Array<{ close(): void }> = []
afterEach(() => {
  for (const o of open.splice(0)) o.close()
})

/** A raw TCP server whose accepted sockets read through readDirect into `onSocket`'s sink. */
async function rawServer(onSocket: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onSocket)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  open.push({ close: () => server.close() })
  return { server, port: (server.address() as AddressInfo).port }
}

function client(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port })
  open.push({ close: () => socket.destroy() })
  return new Promise((resolve) => socket.once('connect', () => resolve(socket)))
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (check()) return
    await new Promise((r) => setTimeout(r, 5))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe('readDirect', () => {
  it('is available on the Node versions ibex runs on', () => {
    expect(directReadsAvailable()).toBe(true)
  })

  it('gives each of many connections its own bytes, whole and in order, through one shared buffer', async () => {
    const got = new Map<number, Buffer[]>()
    const listeners: number[] = []
    const { port } = await rawServer((socket) => {
      const chunks: Buffer[] = []
      const direct = readDirect(socket, (bytes) => {
        chunks.push(bytes)
        return true
      })
      expect(direct).toBe(true)
      listeners.push(socket.listenerCount('data'))
      socket.once('end', () => {
        const id = Buffer.concat(chunks).readUInt32BE(0)
        got.set(id, chunks)
        socket.end()
      })
    })
    const random = prng(11)
    const sent = new Map<number, Buffer>()
    await Promise.all(
      Array.from({ length: 24 }, async (_, id) => {
        const bytes = Buffer.alloc(4 + 20_000 + id * 997)
        bytes.writeUInt32BE(id, 0)
        for (let i = 4; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256)
        sent.set(id, bytes)
        const socket = await client(port)
        for (let at = 0; at < bytes.length; ) {
          const next = Math.min(bytes.length, at + 1 + Math.floor(random() * 9000))
          socket.write(bytes.subarray(at, next))
          at = next
          if (random() < 0.3) await new Promise((r) => setImmediate(r))
        }
        socket.end()
      }),
    )
    await until(() => got.size === 24, 'all 24 connections')
    expect(listeners.every((n) => n === 0)).toBe(true)
    for (const [id, chunks] of got) expect(Buffer.concat(chunks).equals(sent.get(id) as Buffer)).toBe(true)
    // each read was copied out: the chunks of one connection do not share the read buffer
    const all = [...got.values()].flat()
    expect(new Set(all.map((c) => c.buffer)).size).toBeGreaterThan(1)
  })

  it('stops reading on pause() and on a false return, and reads again on resume()', async () => {
    const chunks: Buffer[] = []
    let server: Socket | undefined
    let refuse = false
    const { port } = await rawServer((socket) => {
      server = socket
      readDirect(socket, (bytes) => {
        chunks.push(bytes)
        return !refuse
      })
    })
    const socket = await client(port)
    await until(() => server !== undefined, 'accept')
    const s = server as Socket
    socket.write('one')
    await until(() => chunks.length === 1, 'the first read')
    s.pause()
    socket.write('two')
    await new Promise((r) => setTimeout(r, 100))
    expect(chunks.length).toBe(1)
    s.resume()
    await until(() => chunks.length === 2, 'the read after resume')
    refuse = true
    socket.write('three')
    await until(() => chunks.length === 3, 'the refused read')
    socket.write('four')
    await new Promise((r) => setTimeout(r, 100))
    expect(chunks.length).toBe(3)
    refuse = false
    s.resume()
    await until(() => chunks.length === 4, 'the read after the refusal')
    expect(Buffer.concat(chunks).toString()).toBe('onetwothreefour')
  })
})

const eth: Namespace<Record<string, never>> = {
  name: 'eth',
  methods: { eth_chainId: { params: [], handler: () => toQuantity(786n) } },
}

async function rpcServer(
  directReads: boolean,
): Promise<{ server: RpcHttpServer<Record<string, never>>; port: number }> {
  const server = new RpcHttpServer<Record<string, never>>({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: [],
    maxBodyBytes: 4096,
    maxBatchItems: 5,
    namespaces: [eth],
    enabledApis: ['eth'],
    ctx: {},
    health: () => ({ ok: true, body: {} }),
    directReads,
  })
  const { port } = await server.start()
  open.push({ close: () => void server.stop() })
  return { server, port }
}

const post = (id: number): string => {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_chainId', params: [] })
  return `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
}

describe('fast-path connections reading directly', () => {
  for (const directReads of [true, false]) {
    it(`serves POSTs, then hands over to node:http and an upgrade gets its bytes (directReads ${directReads})`, async () => {
      const { server, port } = await rpcServer(directReads)
      // an upgrade handler that echoes what it reads: the bytes after node:http lets go of the socket
      server.httpServer.on('upgrade', (_req, socket: Socket, head: Buffer) => {
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n')
        if (head.length > 0) socket.write(head)
        socket.on('data', (d: Buffer) => socket.write(d))
      })
      const socket = await client(port)
      let received = ''
      socket.on('data', (d: Buffer) => {
        received += d.toString('latin1')
      })
      socket.write(post(1) + post(2))
      await until(() => received.includes('"id":2'), 'two fast-path answers')
      expect(server.fastConnections).toBe(1)
      socket.write('GET /echo HTTP/1.1\r\nHost: localhost\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nfirst;')
      await until(() => received.includes('first;'), 'the bytes after the upgrade head')
      expect(server.fastConnections).toBe(0)
      socket.write('second;')
      await until(() => received.includes('second;'), 'an echo after the upgrade')
      expect(received).toContain('101 Switching Protocols')
    })
  }
})
