/**
 * A datadir a node is running on, opened again through the CLI binary: a second `ibex start` and
 * an `ibex export` say which process holds it (they used to say `Database is not open`).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupNodes, IBEX_BIN, makeTempDir, startNode } from './helpers/node.js'

afterAll(cleanupNodes)

describe('a datadir in use', () => {
  it('names the datadir and the pid of the node holding it, exit code 1', async () => {
    const datadir = makeTempDir()
    const node = await startNode({ datadir })
    for (const args of [
      ['start', '--network', 'dev', '--datadir', datadir, '--http.port', '0'],
      ['export', '--datadir', datadir, join(makeTempDir(), 'blocks.rlp')],
    ]) {
      const run = spawnSync(process.execPath, [IBEX_BIN, ...args], { encoding: 'utf8', timeout: 30_000 })
      expect(run.status).toBe(1)
      expect(run.stderr.trim().split('\n').at(-1)).toBe(
        `ibex: datadir ${datadir} is in use by another ibex process (pid ${node.pid})`,
      )
    }
    await node.stop()
  })
})
