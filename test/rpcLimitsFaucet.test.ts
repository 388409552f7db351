/**
 * `ibex faucet` answers a body over its 1 KiB limit with 413 and a JSON error a person can read,
 * instead of resetting the connection (issue 18, item 6) — whether the size is declared up front
 * or only found while reading, and whether the client sends the whole body or just its start.
 */
import { writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DEV_ACCOUNTS } from './helpers/dev.js'
import { cleanupNodes, makeTempDir, startNode } from './helpers/node.js'
import { cleanupProcesses, spawnIbex } from './ops/process.js'

const READY = /Listening on (http:\/\/[^\s]+)/
/** The faucet's limit (src/ops/faucet FAUCET_MAX_BODY_BYTES). */
const LIMIT = 1024
/** Generous: a loaded machine answers well within this. */
const ANSWER_WAIT_MS = 10_000

let port = 0

beforeAll(async () => {
  const node = await startNode()
  const dir = makeTempDir('ibex-faucet-413-')
  writeFileSync(join(dir, 'faucet.key'), `${DEV_ACCOUNTS[8].privateKey}\n`, { mode: 0o600 })
  const config = join(dir, 'faucet.toml')
  writeFileSync(
    config,
    [
      'network = "dev"',
      'datadir = "data"',
      '[faucet]',
      `rpc_url = "${node.url}"`,
      'key_file = "faucet.key"',
      'port = 0',
      '',
    ].join('\n'),
  )
  const faucet = await spawnIbex(['faucet', '--config', config], READY)
  port = Number(new URL(faucet.match[1] as string).port)
})

afterAll(async () => {
  await cleanupProcesses()
  await cleanupNodes()
})

/** Sends `head` + `body` raw and returns what came back before the faucet closed (or the wait ran out), and how it ended. */
function exchange(head: string, body: string): Promise<{ text: string; reset: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    let text = ''
    let reset = false
    const timer = setTimeout(() => socket.destroy(), ANSWER_WAIT_MS)
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1')
    })
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET') reset = true
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ text, reset })
    })
    socket.on('connect', () => {
      socket.write(head)
      socket.write(body)
    })
  })
}

const bigBody = JSON.stringify({ address: '0x'.padEnd(42, '1'), note: 'x'.repeat(LIMIT * 2) })

function expect413(got: { text: string; reset: boolean }): void {
  expect(got.reset).toBe(false)
  expect(got.text).toMatch(/^HTTP\/1\.1 413 /)
  expect(got.text).toContain('Connection: close')
  const json = JSON.parse(got.text.slice(got.text.indexOf('\r\n\r\n') + 4))
  expect(json).toEqual({ error: `request too large (over ${LIMIT} bytes)` })
}

describe('faucet body limit', () => {
  it('a declared Content-Length over 1 KiB: 413 with a JSON error, not a reset', async () => {
    const head = `POST /faucet HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${bigBody.length}\r\n\r\n`
    expect413(await exchange(head, bigBody))
  })

  it('a chunked body that grows past 1 KiB: 413 with a JSON error, not a reset', async () => {
    const head =
      'POST /faucet HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n'
    const chunked = `${bigBody.length.toString(16)}\r\n${bigBody}\r\n0\r\n\r\n`
    expect413(await exchange(head, chunked))
  })
})
