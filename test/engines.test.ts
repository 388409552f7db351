/**
 * Every package the node runs on (dependencies, not dev tools) supports the Node versions the
 * package declares in `engines`: npm 11 only warns (EBADENGINE) when one does not, and such a
 * package can break at run time on the oldest Node we promise (p-retry 8 wanted Node 22 under
 * libp2p: pinned to 7 through `overrides`).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './helpers/compile.js'

interface LockEntry {
  dev?: boolean
  optional?: boolean
  engines?: { node?: string } | string[]
}

describe('engines', () => {
  it('every runtime dependency in package-lock.json accepts the oldest Node of package.json engines', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
    const oldest = semver.minVersion(pkg.engines.node)?.version as string
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, LockEntry>
    }
    const refused: string[] = []
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || entry.dev === true) continue
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      if (range !== undefined && !semver.satisfies(oldest, range, { includePrerelease: true })) {
        refused.push(`${path.replace(/^.*node_modules\//, '')}: node ${range}`)
      }
    }
    expect(refused).toEqual([])
  })
})
