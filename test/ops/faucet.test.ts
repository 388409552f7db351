/**
 * `ibex faucet` beside a dev node: the page, clear errors, one grant per address and per client
 * IP within the cooldown — also after the faucet restarts — the daily budget, and no mainnet.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

import type { Pool } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DEV_ACCOUNTS, randomAddress } from '../helpers/dev.js'
import { cleanupNodes, IBEX_BIN, type IbexNode, makeTempDir, rpc, startNode, waitForReceipt } from '../helpers/node.js'
import { clientFrom, get, post } from './client.js'
import { cleanupProcesses, type Spawned, spawnIbex } from './process.js'

const AMOUNT_WEI = 2n * 10n ** 18n
const READY = /Listening on (http:\/\/[^\s]+)/

let node: IbexNode
let dir: string
let config: string
let faucet: Spawned
let faucetUrl: string
const pools: Pool[] = []
function from(ip: string): Pool {
  const pool = clientFrom(faucetUrl, ip, 1)
  pools.push(pool)
  return pool
}

async function startFaucet(): Promise<void> {
  faucet = await spawnIbex(['faucet', '--config', config], READY)
  faucetUrl = faucet.match[1] as string
}

beforeAll(async () => {
  node = await startNode()
  dir = makeTempDir('ibex-faucet-')
  writeFileSync(join(dir, 'faucet.key'), `${DEV_ACCOUNTS[9].privateKey}\n`, { mode: 0o600 })
  config = join(dir, 'faucet.toml')
  writeFileSync(
    config,
    [
      'network = "dev"',
      'datadir = "data"',
      'log_format = "text"',
      '[chain]',
      'token_symbol = "TIBX"',
      '[faucet]',
      `rpc_url = "${node.url}"`,
      'key_file = "faucet.key"',
      'amount = "2ether"',
      'cooldown = "3600s"',
      'daily_budget = "5ether"',
      'port = 0',
      '',
    ].join('\n'),
  )
  await startFaucet()
})

afterAll(async () => {
  await Promise.allSettled(pools.map((p) => p.destroy()))
  await cleanupProcesses()
  await cleanupNodes()
})

describe('ibex faucet', () => {
  it('serves its page', async () => {
    const page = await get(from('127.0.0.1'), '/')
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.text).toContain('Ibex Dev faucet')
    expect(page.text).toContain('2 TIBX')
  })

  it('refuses a bad address with a clear error', async () => {
    const bad = await post(from('127.0.0.1'), { address: '0x1234' }, {}, '/faucet')
    expect(bad.status).toBe(400)
    expect(bad.json.error).toBe('invalid address "0x1234": expected 0x followed by 40 hex digits')
    const checksum = await post(
      from('127.0.0.1'),
      { address: '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266' },
      {},
      '/faucet',
    )
    expect(checksum.status).toBe(400)
    expect(checksum.json.error).toContain('EIP-55 checksum')
  })

  it('funds an address once, then refuses it and the same IP within the cooldown, also after a restart', async () => {
    const address = randomAddress()
    const first = await post(from('127.0.0.2'), { address }, {}, '/faucet')
    expect(first.status, first.text).toBe(200)
    expect(first.json).toMatchObject({ address, amount: '2 TIBX' })
    const receipt = await waitForReceipt(node.url, first.json.txHash)
    expect(receipt.status).toBe('0x1')
    expect(BigInt(await rpc<string>(node.url, 'eth_getBalance', [address, 'latest']))).toBe(AMOUNT_WEI)

    const again = await post(from('127.0.0.3'), { address }, {}, '/faucet')
    expect(again.status).toBe(429)
    expect(again.json.error).toMatch(
      new RegExp(`^cooling down: ${address} was served \\d+ s ago; try again in (59 min|1 h)$`),
    )
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(3500)

    const sameIp = await post(from('127.0.0.2'), { address: randomAddress() }, {}, '/faucet')
    expect(sameIp.status).toBe(429)
    expect(sameIp.json.error).toMatch(/^cooling down: your IP address was served/)

    expect(await faucet.stop()).toEqual({ code: 0, signal: null })
    await startFaucet()
    const afterRestart = await post(from('127.0.0.4'), { address }, {}, '/faucet')
    expect(afterRestart.status).toBe(429)
    expect(afterRestart.json.error).toContain(`cooling down: ${address}`)
    expect(BigInt(await rpc<string>(node.url, 'eth_getBalance', [address, 'latest']))).toBe(AMOUNT_WEI)
  })

  it('stops at the daily budget until midnight UTC', async () => {
    // 2 of 5 coins spent above: one more grant fits, the next does not
    const fits = await post(from('127.0.0.5'), { address: randomAddress() }, {}, '/faucet')
    expect(fits.status, fits.text).toBe(200)
    const over = await post(from('127.0.0.6'), { address: randomAddress() }, {}, '/faucet')
    expect(over.status).toBe(503)
    expect(over.json.error).toMatch(/^the daily budget of 5 TIBX is spent; try again after 00:00 UTC \(in .+\)$/)
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('refuses to run for mainnet', () => {
    const main = join(dir, 'main.toml')
    writeFileSync(main, 'network = "mainnet"\n[faucet]\nkey_file = "faucet.key"\n')
    const r = spawnSync(process.execPath, [IBEX_BIN, 'faucet', '--config', main], { encoding: 'utf8' })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('ibex faucet serves testnet and dev chains only')
  })
})
