import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { afterAll, describe, expect, it } from 'vitest'

import { loadNodeKey, newNodeKeySeed, nodeKeyPath, peerIdOfSeed, readNodeKeySeed } from './identity.js'

const dir = mkdtempSync(join(tmpdir(), 'ibex-identity-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('node identity', () => {
  it('is created once (0600) and the same key comes back after a restart', async () => {
    const first = await loadNodeKey(dir)
    expect(statSync(nodeKeyPath(dir)).mode & 0o777).toBe(0o600)
    const again = await loadNodeKey(dir)
    expect(peerIdFromPrivateKey(again).toString()).toBe(peerIdFromPrivateKey(first).toString())
  })

  it('peerIdOfSeed (no libp2p) matches libp2p’s peer id of the same seed', async () => {
    for (let i = 0; i < 5; i++) {
      const seed = newNodeKeySeed()
      const sub = mkdtempSync(join(dir, 'k'))
      const { writeNodeKey } = await import('./identity.js')
      writeNodeKey(nodeKeyPath(sub), seed)
      const key = await loadNodeKey(sub)
      expect(peerIdOfSeed(seed)).toBe(peerIdFromPrivateKey(key).toString())
      expect(readNodeKeySeed(nodeKeyPath(sub))).toEqual(seed)
      expect(readFileSync(nodeKeyPath(sub), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/)
    }
  })
})
