/** Where the worker threads' compiled entry points are (dist/workers/), from src/ or dist/src/. */
import { existsSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** Resolves a compiled worker file (dist/workers/<name>.<ext>), from src/ or dist/src/. */
export function workerFile(name: string, ext = 'js'): string {
  const here = fileURLToPath(import.meta.url)
  const marker = `${sep}dist${sep}src${sep}`
  const root = here.includes(marker)
    ? here.slice(0, here.lastIndexOf(marker))
    : resolve(dirname(here), '..', '..', '..')
  const file = join(root, 'dist', 'workers', `${name}.${ext}`)
  if (!existsSync(file)) throw new Error(`worker entry point ${file} missing: run \`npm run build\``)
  return file
}

/**
 * Options that start a worker on workers/entry.cts, which imports the task module `name`
 * (dist/workers/<name>.js) asynchronously: `filename`, and `ibexEntry` to put in the workerData.
 */
export function workerEntry(name: string): { filename: string; ibexEntry: string } {
  return { filename: workerFile('entry', 'cjs'), ibexEntry: pathToFileURL(workerFile(name)).href }
}
