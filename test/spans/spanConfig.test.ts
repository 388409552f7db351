/**
 * `ibex start` with [ibft] span_blocks = 1 is refused (exit 2, the key named) before the node
 * serves: a span's last block carries the next committee's consent and its first block seeds the
 * draw, so a span needs two blocks (src/consensus/spanParams.ts).
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { REPO_ROOT } from '../helpers/compile.js'
import { IBEX_BIN, makeTempDir } from '../helpers/node.js'
import { rmSync } from 'node:fs'

const dir = makeTempDir('ibex-span-config-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('[ibft] span_blocks', () => {
  it('1 is refused with exit code 2 and a one-line reason naming the key', () => {
    const run = spawnSync(
      process.execPath,
      [IBEX_BIN, 'start', '--network', 'dev', '--span-blocks', '1', '--datadir', join(dir, 'one'), '--http.port', '0'],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 },
    )
    expect(run.status, run.stderr + run.stdout).toBe(2)
    expect(run.stderr).toMatch(/^ibex: ibft\.span_blocks = 1 is not allowed: .*use 0 \(spans off\) or ≥ 2$/m)
  }, 90_000)
})
