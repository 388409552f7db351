/**
 * `ibex import` / `ibex export` through the real CLI:
 *  - a foreign chain (the conformance suite's geth chain, Homestead → Osaka): imported, exported
 *    back byte for byte, imported again into a fresh datadir, re-imported as a no-op, and a
 *    block with a wrong state root refused with an error naming the block and the mismatch;
 *  - our own IBFT dev chain: blocks sealed by a node, exported, imported into a fresh datadir
 *    with the same genesis, exported again identically.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { afterAll, describe, expect, it } from 'vitest'
import { SUITE_DIR } from './conformance/cases.js'
import { REPO_ROOT } from './helpers/compile.js'
import { DEV_ACCOUNTS, randomAddress } from './helpers/dev.js'
import { cleanupNodes, IBEX_BIN, makeTempDir, startNode, waitForReceipt } from './helpers/node.js'
import { sendTx } from './helpers/tx.js'

afterAll(cleanupNodes)

const GENESIS = join(SUITE_DIR, 'genesis.json')
const CHAIN = join(SUITE_DIR, 'chain.rlp')
/** Head of the suite's chain (its headfcu.json). */
const SUITE_HEAD = '0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7'

function ibex(args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [IBEX_BIN, ...args, '--log-level', 'info'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
  return { status: r.status, out: r.stdout, err: r.stderr }
}

function ok(args: string[]): string {
  const r = ibex(args)
  if (r.status !== 0) throw new Error(`ibex ${args.join(' ')} failed (${r.status}):\n${r.err}\n${r.out}`)
  return r.out
}

describe.skipIf(!existsSync(CHAIN))('import of a geth chain', () => {
  const datadir = makeTempDir('ibex-import-')

  it('imports all 54 blocks, with progress, to the suite head', () => {
    ok(['init', '--datadir', datadir, '--genesis', GENESIS])
    const r = ibex(['import', '--datadir', datadir, CHAIN])
    expect(r.status, r.err).toBe(0)
    expect(r.out).toContain(`Imported 54 blocks from ${CHAIN}; head 54 ${SUITE_HEAD}`)
    expect(r.err).toMatch(/imported 54 blocks \(0 already known\)/)
  })

  it('exports blocks 1..54 exactly as geth wrote them; a re-import adds nothing', () => {
    const file = join(makeTempDir('ibex-export-'), 'out.rlp')
    ok(['export', '--datadir', datadir, file, '1'])
    expect(Buffer.compare(readFileSync(file), readFileSync(CHAIN))).toBe(0)
    expect(ok(['import', '--datadir', datadir, file])).toContain('Imported 0 blocks')
  })

  it('round-trips: a full export (genesis included) imports into a fresh datadir', () => {
    const file = join(makeTempDir('ibex-export-'), 'all.rlp')
    ok(['export', '--datadir', datadir, file])
    const fresh = makeTempDir('ibex-import-')
    ok(['init', '--datadir', fresh, '--genesis', GENESIS])
    expect(ok(['import', '--datadir', fresh, file])).toContain(`Imported 54 blocks from ${file}; head 54 ${SUITE_HEAD}`)
  })

  it('stops at a block whose state root does not verify, naming it', () => {
    const blocks: Uint8Array[] = []
    const bytes = readFileSync(CHAIN)
    let offset = 0
    while (offset < bytes.length) {
      const item = RLP.decode(bytes.subarray(offset), true)
      blocks.push(bytes.subarray(offset, bytes.length - item.remainder.length))
      offset = bytes.length - item.remainder.length
    }
    const tenth = RLP.decode(blocks[9] as Uint8Array) as unknown as [Uint8Array[], ...unknown[]]
    const root = Uint8Array.from(tenth[0][3] as Uint8Array)
    root[0] = (root[0] as number) ^ 0xff
    tenth[0][3] = root
    const file = join(makeTempDir('ibex-bad-'), 'bad.rlp')
    writeFileSync(file, Buffer.concat([...blocks.slice(0, 9), RLP.encode(tenth as never)]))
    const fresh = makeTempDir('ibex-import-')
    ok(['init', '--datadir', fresh, '--genesis', GENESIS])
    const r = ibex(['import', '--datadir', fresh, file])
    expect(r.status).not.toBe(0)
    expect(r.err).toMatch(/block 10 \(0x[0-9a-f]{64}\): state root mismatch: have 0x[0-9a-f]{64}, want 0x[0-9a-f]{64}/)
    // the nine good blocks stay imported
    expect(ok(['export', '--datadir', fresh, join(makeTempDir('ibex-export-'), 'x.rlp')])).toContain('(0..9)')
  })
})

describe('export → import of an IBFT chain', () => {
  it('re-imports its own sealed blocks and exports them identically', async () => {
    const node = await startNode()
    const hashes: `0x${string}`[] = []
    for (let i = 0; i < 3; i++) {
      hashes.push(await sendTx(node.url, DEV_ACCOUNTS[0].privateKey, { to: randomAddress(), value: 10n ** 15n }))
      await waitForReceipt(node.url, hashes[i] as `0x${string}`)
    }
    await node.stop()
    const first = join(makeTempDir('ibex-export-'), 'dev.rlp')
    expect(ok(['export', '--datadir', node.datadir, first])).toMatch(/Exported \d+ blocks/)
    // the dev genesis follows from the validator key: the same key gives the same genesis
    const fresh = makeTempDir('ibex-import-')
    writeFileSync(join(fresh, 'validator.key'), readFileSync(join(node.datadir, 'validator.key')))
    ok(['init', '--network', 'dev', '--datadir', fresh])
    expect(ok(['import', '--datadir', fresh, first])).toMatch(/Imported [1-9]\d* blocks/)
    const second = join(makeTempDir('ibex-export-'), 'dev2.rlp')
    ok(['export', '--datadir', fresh, second])
    expect(Buffer.compare(readFileSync(second), readFileSync(first))).toBe(0)
  })
})
