/**
 * The package root and version, found by walking up from this file (the same code runs
 * from `src/` under vitest and from `dist/src/` when built).
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(dir, 'package.json')
    if (existsSync(candidate) && JSON.parse(readFileSync(candidate, 'utf8')).name === 'ibex') return dir
    const parent = dirname(dir)
    if (parent === dir) throw new Error('ibex package.json not found')
    dir = parent
  }
}

export const PACKAGE_ROOT = findRoot()
export const PACKAGE_VERSION: string = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version
