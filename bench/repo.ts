/** Paths of the benchmark harness: the repository root, from bench/… or dist/bench/…. */
import { dirname, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

/** Repository root. */
export const REPO = here.includes(`${sep}dist${sep}bench`)
  ? resolve(here.slice(0, here.lastIndexOf(`${sep}dist${sep}bench`)))
  : resolve(here, '..')

/** Where reports are written. */
export const RESULTS_DIR = join(REPO, 'bench', 'results')

/** A module in node_modules, by package-relative path. */
export function nodeModule(path: string): string {
  return join(REPO, 'node_modules', path)
}
